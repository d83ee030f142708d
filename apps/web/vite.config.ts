import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  base: "/app/",
  plugins: [react(), tailwindcss()],
  server: { proxy: { "/api": "http://127.0.0.1:3000", "/trpc": "http://127.0.0.1:3000", "/ws": { target: "ws://127.0.0.1:3000", ws: true } } },
  build: { outDir: "dist", sourcemap: false },
});

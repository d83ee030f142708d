import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "@hono/node-server/serve-static";
import type { AppEnv } from "@meridian/api";
import type { Hono } from "hono";

export const defaultWebDistDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../web/dist");

/** Serves the built SPA under /app/; unknown paths below it get index.html for client routing. */
export function mountSpa(app: Hono<AppEnv>, distDir: string) {
  const indexFile = path.join(distDir, "index.html");
  const root = path.relative(process.cwd(), distDir) || ".";
  app.get("/", (c) => c.redirect("/app/", 302));
  app.get("/app", (c) => c.redirect("/app/", 301));
  if (!fs.existsSync(distDir)) {
    app.get("/app/*", (c) => c.text("The web app is not built yet: run `pnpm build`.", 503));
    return;
  }
  app.use(
    "/app/assets/*",
    serveStatic({
      root,
      rewriteRequestPath: (requestPath) => requestPath.replace(/^\/app/, ""),
      onFound: (_path, c) => {
        c.header("cache-control", "public, max-age=31536000, immutable");
      },
    }),
  );
  app.get("/app/*", async (c) => {
    const candidate = path.join(distDir, path.normalize(c.req.path.replace(/^\/app\//, "")));
    if (
      candidate.startsWith(distDir) &&
      candidate !== distDir &&
      fs.existsSync(candidate) &&
      fs.statSync(candidate).isFile() &&
      !candidate.endsWith("index.html")
    ) {
      return serveStatic({ root, rewriteRequestPath: (requestPath) => requestPath.replace(/^\/app/, "") })(c, async () => undefined) as Promise<Response>;
    }
    if (!fs.existsSync(indexFile)) return c.text("The web app is not built yet: run `pnpm build`.", 503);
    c.header("cache-control", "no-cache");
    return c.html(fs.readFileSync(indexFile, "utf8"));
  });
}

import path from "node:path";
import { defineConfig } from "vitest/config";

/** `pnpm test:topology`: the cluster topology check, apart from `pnpm test` (it starts a whole cluster and loses parts of it). */
export default defineConfig({
  root: path.resolve(import.meta.dirname, "../.."),
  test: {
    include: ["tests/topology/*.check.ts"],
    pool: "forks",
    testTimeout: 900_000,
    hookTimeout: 600_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});

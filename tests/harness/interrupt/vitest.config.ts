import path from "node:path";
import { defineConfig } from "vitest/config";

/** A run that holds its servers until it is interrupted (tests/processes/test-run-interrupt.test.ts starts it). */
export default defineConfig({
  root: path.resolve(import.meta.dirname, "../../.."),
  test: {
    include: ["tests/harness/interrupt/*.fixture.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    pool: "forks",
    testTimeout: 600_000,
    hookTimeout: 120_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});

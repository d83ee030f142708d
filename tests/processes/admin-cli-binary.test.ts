import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnAdminCli } from "../support/admin-cli";
import { startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

/**
 * `pnpm admin` as the binary: its main runs the command (runCli) and exits with its code. The commands
 * themselves run in-process in tests/integration/admin-cli.test.ts; what only a process of its own
 * shows is here: the exit status, stdout and stderr, and the AWS SDK's warning that a process prints.
 */
const ADMIN = { email: "cli-binary-admin@example.com", password: "cli binary admin password" };
let server: TestServer;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());

describe("the admin CLI's binary", () => {
  it("prints no AWS SDK warning, even when started without the flag the package script sets, and exits with the command's code", async () => {
    // Each is a process of its own, and only reads: side by side.
    const [settings, unknown, missing] = await Promise.all([
      spawnAdminCli(server, ["settings"], { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined }),
      spawnAdminCli(server, ["no-such-command"]),
      spawnAdminCli(server, ["repair", "iss_missing"]),
    ]);
    expect(settings.code, settings.output).toBe(0);
    expect(settings.output).not.toMatch(/NodeVersionSupportWarning|AWS SDK/);
    expect(settings.output).toMatch(/^SETTING +VALUE$/m);
    expect(unknown.code, unknown.output).toBe(2);
    expect(unknown.output).toContain("unknown command 'no-such-command'");
    expect(missing.code, missing.output).toBe(4);
  });
});

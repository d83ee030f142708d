import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { roomyLimits } from "../support/auth-suite";
import { startPushReceivers } from "../support/push-receivers";
import { until } from "../support/until";
import { startTestServer, type TestServer } from "../support/test-server";

const ADMIN = { ADMIN_EMAIL: "notices-admin@example.com", ADMIN_PASSWORD: "notices admin password" };
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers.reverse()) await server.stop().catch(() => undefined);
});

async function start(env: Record<string, string> = {}) {
  const server = await startTestServer({ ...roomyLimits, ...ADMIN, MERIDIAN_ROLE: "server", ...env });
  servers.push(server);
  return server;
}

/** The notices written to the outbox, by kind: the start notice is committed before startServer returns. */
async function outboxKinds(server: TestServer) {
  const rows = await server.server.runtime.deps.db.execute<{ kind: string }>(sql`select doc->>'kind' as kind from email_outbox order by created_at`);
  return rows.map((row) => row.kind);
}

describe("notices to server administrators", () => {
  it("announce a start of the cluster once, not once per replica, and again after the whole cluster restarts", async () => {
    const first = await start();
    expect((await outboxKinds(first)).filter((kind) => kind === "server_started")).toHaveLength(1);
    const replica = await start({ DATABASE_URL: first.databaseUrl });
    expect((await outboxKinds(replica)).filter((kind) => kind === "server_started")).toHaveLength(1);
    // A rolling restart: the replica goes and comes back while the first keeps running.
    await replica.stop();
    servers.splice(servers.indexOf(replica), 1);
    const restarted = await start({ DATABASE_URL: first.databaseUrl });
    expect((await outboxKinds(restarted)).filter((kind) => kind === "server_started")).toHaveLength(1);
    // The whole cluster stops, then starts again: a new notice.
    await restarted.stop();
    await first.stop();
    servers.length = 0;
    const again = await start({ DATABASE_URL: first.databaseUrl });
    expect((await outboxKinds(again)).filter((kind) => kind === "server_started")).toHaveLength(2);
  });

  it("announce every start of the whole cluster, also when a server starts the moment the last one stopped (20 times)", async () => {
    let server = await start();
    const databaseUrl = server.databaseUrl;
    for (let round = 1; round <= 20; round += 1) {
      await server.stop();
      servers.length = 0;
      server = await start({ DATABASE_URL: databaseUrl });
      expect((await outboxKinds(server)).filter((kind) => kind === "server_started")).toHaveLength(round + 1);
    }
  });

  it("announce servers that start together once between them", async () => {
    const first = await start();
    await first.stop();
    servers.length = 0;
    const together = await Promise.all([start({ DATABASE_URL: first.databaseUrl }), start({ DATABASE_URL: first.databaseUrl })]);
    expect((await outboxKinds(together[0]!)).filter((kind) => kind === "server_started")).toHaveLength(2);
  });

  it("report a missing plate-solving star catalog at start, and say nothing when it is there", async () => {
    const missing = await start({ STAR_CATALOG_DIR: path.join(os.tmpdir(), "no-such-star-catalog") });
    expect(await outboxKinds(missing)).toContain("star_catalog_missing");
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "star-catalog-"));
    await fs.writeFile(path.join(dir, "tycho2.bin"), "stars");
    const present = await start({ STAR_CATALOG_DIR: dir });
    expect(await outboxKinds(present)).not.toContain("star_catalog_missing");
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("reach administrators by push too, and nobody who switched system events off: no start notice, no missing catalog", async () => {
    const receivers = await startPushReceivers();
    try {
      const pushEnv = { PUSH_APP_TOKEN: "app-token-for-notices", PUSH_API_URL: receivers.pushoverUrl };
      const first = await start({ MERIDIAN_ROLE: "all", ...pushEnv });
      const login = await first.request("/api/v1/auth/login", {
        method: "POST",
        json: { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD },
      });
      const { token } = (await login.json()) as { token: string };
      const put = (pathname: string, json: unknown) => first.request(pathname, { method: "PUT", token, json });
      expect((await put("/api/v1/user/pushover", { userKey: "n".repeat(10) + "otices1234567890abcd", devices: [] })).status).toBe(200);

      // A start of the whole cluster: by email and by push.
      await first.stop();
      servers.length = 0;
      const second = await start({ DATABASE_URL: first.databaseUrl, MERIDIAN_ROLE: "all", ...pushEnv });
      const form = await until("the start notice by push", async () => receivers.pushoverForms.find((sent) => sent.title?.includes("started")));
      expect(form).toMatchObject({ token: "app-token-for-notices", user: "n".repeat(10) + "otices1234567890abcd" });
      expect(form.message).toContain("started");
      const startsBefore = (await outboxKinds(second)).filter((kind) => kind === "server_started").length;

      // Switched off: the next start and a missing catalog tell the administrator nothing, by any channel.
      const secondLogin = (await (
        await second.request("/api/v1/auth/login", { method: "POST", json: { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD } })
      ).json()) as {
        token: string;
      };
      const off = await second.request("/api/v1/user/profile", {
        method: "PUT",
        token: secondLogin.token,
        json: { notificationPreferences: { systemEvents: false } },
      });
      expect(off.status).toBe(200);
      await second.stop();
      servers.length = 0;
      // No worker in this one: a push job queued for the start would still be waiting.
      const third = await start({ DATABASE_URL: first.databaseUrl, STAR_CATALOG_DIR: path.join(os.tmpdir(), "no-such-star-catalog"), ...pushEnv });
      const kinds = await outboxKinds(third);
      expect(kinds.filter((kind) => kind === "server_started")).toHaveLength(startsBefore);
      expect(kinds).not.toContain("star_catalog_missing");
      const [queued] = await third.server.runtime.deps.db.execute<{ count: number }>(
        sql`select count(*)::int as count from graphile_worker.jobs where task_identifier = 'send_push'`,
      );
      expect(queued!.count).toBe(0);
    } finally {
      await receivers.stop();
    }
  });
});

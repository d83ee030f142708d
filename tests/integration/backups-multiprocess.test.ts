import { runBackup, runRestore } from "@meridian/domain/backups";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { createAccount, expectProblem } from "../support/auth-suite";
import { useReplicas } from "../support/replicas";
import { until } from "../support/until";

const ADMIN = { email: "restore-replicas@example.com", password: "restore replicas password" };
// Two server processes without workers: the test runs the jobs' work itself, with A's services.
const replicas = useReplicas(ADMIN);

describe("a restore across server processes", () => {
  it("refuses writes on every process while it runs, and every process forgets credentials it had cached", async () => {
    const { serverA, serverB, adminToken } = replicas;
    const depsA = () => serverA.server.runtime.deps;
    const created = await serverA.request("/api/v1/admin/backups", { method: "POST", token: adminToken });
    expect(created.status).toBe(202);
    const backup = (await created.json()) as { id: string; jobId: string };
    await runBackup({ deps: depsA(), jobId: backup.jobId, backupId: backup.id, then: null });

    // Signed up after the backup: B caches this session for an hour (REQUEST_CACHE_TTL_MS).
    const newcomer = await createAccount(serverA);
    expect((await serverB.request("/api/v1/auth/me", { token: newcomer.token })).status).toBe(200);

    const restore = await serverA.request(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST", token: adminToken });
    expect(restore.status).toBe(202);
    const { jobId } = (await restore.json()) as { jobId: string };
    // A lock on a collection the requests below do not read keeps the restore in its load, under maintenance.
    const blocker = postgres(serverA.databaseUrl, { max: 1, onnotice: () => undefined });
    let restoring: Promise<void> | undefined;
    try {
      await blocker`begin`;
      await blocker`lock table push_subscriptions in access exclusive mode`;
      restoring = runRestore({ deps: depsA(), jobId, backupId: backup.id, actorId: null });
      await until("maintenance on B", async () => ((await (await serverB.request("/api/v1/maintenance")).json()) as { active: boolean }).active);
      await expectProblem(await serverB.request("/projects", { method: "POST", token: adminToken, json: { name: "During" } }), 503, "MAINTENANCE");
    } finally {
      await blocker`rollback`.catch(() => undefined);
      await blocker.end();
    }
    await restoring;

    expect(((await (await serverB.request("/api/v1/maintenance")).json()) as { active: boolean }).active).toBe(false);
    // The session did not exist when the backup was taken: B no longer honours it, though its cache would have for an hour.
    await until("B to forget the newcomer's session", async () => (await serverB.request("/api/v1/auth/me", { token: newcomer.token })).status === 401);
    expect((await serverB.request("/projects", { method: "POST", token: adminToken, json: { name: "After" } })).status).toBe(201);
  });
});

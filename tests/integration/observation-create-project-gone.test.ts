import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { holdTable } from "../support/table-hold";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * A creation judges its project under the project's row lock (FOR NO KEY UPDATE, `holdProjectForObservation`), not
 * as its first reads saw it. Here the creation reaches that lock while an archive or a deletion of the project holds
 * the row: the change is parked at its audit entry (the last thing it writes) by a hold on `audit_log`, which the
 * creation never touches, so the creation's reads see the project as it was and the creation then waits at the row.
 * Once the change commits, the creation must be refused as the contract says and leave nothing behind.
 */
let server: TestServer;
let owner: Account;
beforeAll(async () => {
  // No worker: the creation's dispatch job would find nothing anyway, and nothing runs behind the test's back.
  server = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server" });
  owner = await createAccount(server);
});
afterAll(() => server?.stop());
const { must, call } = jsonApi(() => server);

/** How many backends wait for a row (another transaction's lock on it), rather than for a table. */
async function rowWaiters(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<Array<{ waiting: number }>>`
    select count(distinct pid)::int as waiting from pg_locks
     where not granted and locktype in ('transactionid', 'tuple')
       and pid in (select pid from pg_stat_activity where datname = current_database())`;
  return row!.waiting;
}

const deneb = { name: "Deneb", ra: 310.36, dec: 45.28, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] };

/**
 * Runs `change` (a request that locks the project's row first and writes its audit entry last), parks it at its audit
 * entry, sends a creation into the project that waits for the row, then lets the change commit: both answers.
 */
async function createWhileProjectChanges(project: { id: string }, observatory: { id: string }, change: () => ReturnType<typeof call>) {
  const hold = await holdTable(server.databaseUrl, "audit_log");
  try {
    const changed = change();
    await until("the project's change to wait at its audit entry", () => hold.waiting(), { intervalMs: 5 });
    const creation = call("/observations", {
      method: "POST",
      token: owner.token,
      json: { name: "Too late", projectId: project.id, observatoryId: observatory.id, targets: [deneb] },
    });
    const sql = server.server.runtime.deps.sql;
    await until("the creation to wait for the project's row", async () => (await rowWaiters(sql)) >= 1, { intervalMs: 5 });
    // Only the change waits at the hold: the creation waits behind it, at the row.
    expect(await hold.waiters()).toBe(1);
    await hold.release();
    return { changed: await changed, created: await creation };
  } finally {
    await hold.release();
  }
}

async function observationsAt(observatoryId: string) {
  return ((await must(`/observations?observatoryId=${observatoryId}&limit=10`, { token: owner.token }, 200)) as { items: unknown[] }).items;
}

describe("an observation created while its project is archived or deleted", () => {
  it("is refused with 409 PROJECT_NOT_ACTIVE when the project was archived while the creation waited for its row", async () => {
    const { observatory, project } = await observingNetwork(must, owner);
    const { changed, created } = await createWhileProjectChanges(project, observatory, () =>
      call(`/projects/${project.id}`, { method: "PUT", token: owner.token, json: { status: "archived" } }),
    );
    expect(changed.status).toBe(200);
    expect({ status: created.status, code: created.body.code }).toEqual({ status: 409, code: "PROJECT_NOT_ACTIVE" });
    expect(created.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await observationsAt(observatory.id)).toEqual([]);
    expect(await must(`/projects/${project.id}`, { token: owner.token }, 200)).toMatchObject({ status: "archived" });
  });

  it("is refused with 404 NOT_FOUND when the project was deleted while the creation waited for its row", async () => {
    const { observatory, project } = await observingNetwork(must, owner);
    await must(`/projects/${project.id}`, { method: "PUT", token: owner.token, json: { status: "archived" } }, 200);
    const { changed, created } = await createWhileProjectChanges(project, observatory, () =>
      call(`/projects/${project.id}`, { method: "DELETE", token: owner.token }),
    );
    expect(changed.status).toBe(204);
    // Not 409 PROJECT_NOT_ACTIVE, as the archived project the creation first read would answer: the project is gone.
    expect({ status: created.status, code: created.body.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(created.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await observationsAt(observatory.id)).toEqual([]);
    expect((await call(`/projects/${project.id}`, { token: owner.token })).status).toBe(404);
  });
});

import { integrityIssuesCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "scan-retention-admin@example.com", password: "scan retention admin password" };
const KEEP = 2;
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", INTEGRITY_SCANS_KEEP: String(KEEP) }));
});
afterAll(() => server?.stop());
const { must, scanToEnd } = jsonApi(() => server);

interface Scan {
  id: string;
  status: string;
}

describe("integrity scan retention", () => {
  it("the daily prune_integrity_scans keeps the newest INTEGRITY_SCANS_KEEP finished scans with their issues, and any under a repair", async () => {
    const db = server.server.runtime.deps.db;
    const scans: Scan[] = [];
    for (let index = 0; index < 4; index += 1) scans.push(await scanToEnd<Scan>({ kind: "quick" }, adminToken));
    const [oldest, underRepair, kept1, kept2] = scans as [Scan, Scan, Scan, Scan];
    // An issue of the oldest scan, as a scan writes it: it goes with its scan.
    const issue = await integrityIssuesCollection.insert(db, {
      scanId: oldest.id,
      severity: "warning",
      type: "data_quality",
      collection: "observations",
      documentId: "obs_gone",
      code: "STALE_IN_PROGRESS",
      message: "An observation in progress for too long",
      autoFixable: false,
      fix: null,
      status: "open",
      documentUpdatedAt: null,
    });
    // A bulk repair of the second is under way (its job record running): that scan stays, however old.
    await db.execute(sql`
      insert into jobs (id, doc, kind, status, subject_id)
      values ('job_retention_repair', jsonb_build_object('kind', 'integrity_repair', 'status', 'running'), 'integrity_repair', 'running', ${underRepair.id})`);

    await db.execute(sql`select graphile_worker.add_job('prune_integrity_scans', '{}'::json)`);
    await until(
      "the oldest scan to be removed",
      async () => (await server.request(`/api/v1/admin/integrity/scans/${oldest.id}`, { token: adminToken })).status === 404,
    );
    const left = (await must("/api/v1/admin/integrity/scans?limit=50", { token: adminToken }, 200)) as { items: Scan[] };
    expect(left.items.map((scan) => scan.id).sort()).toEqual([underRepair.id, kept1.id, kept2.id].sort());
    expect(await integrityIssuesCollection.get(db, issue.id)).toBeUndefined();
  });
});

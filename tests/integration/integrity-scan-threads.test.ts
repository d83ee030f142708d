import { observationHistoryCollection, observationsCollection, type ObservationDoc } from "@meridian/db";
import { THREADED_SCAN_DOCUMENTS } from "@meridian/domain/integrity";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { hoursAgo, observationDocument, stuckFor } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "threaded-scan-admin@example.com", password: "threaded scan admin password" };
const CLEAN_COPIES = THREADED_SCAN_DOCUMENTS + 5000;
let server: TestServer;
let adminToken: string;
const damaged: Record<string, string> = {};
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { scanSchedule: { quick: null, full: null } } }, 200);
  const owner = await createAccount(server);
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Threaded" } }, 201)) as { id: string };
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Threaded" } }, 201)) as { id: string };
  const db = server.server.runtime.deps.db;
  const insert = async (fields: Partial<ObservationDoc> = {}) =>
    (await observationsCollection.insert(db, observationDocument({ projectId: project.id, observatoryId: observatory.id, ownerId: owner.id }, fields))).id;
  const clean = await insert();
  // Clean copies whose ids sort around the damaged documents below, so the damage lands in
  // batches all through the collection, each checked by whichever thread is free.
  await db.execute(sql`
    insert into observations (id, doc, created_at, updated_at, project_id, observatory_id, owner_id, status, priority, status_changed_at)
    select ${clean} || '_' || lpad(g::text, 6, '0'), doc, created_at, updated_at, project_id, observatory_id, owner_id, status, priority, status_changed_at
    from observations, generate_series(1, ${CLEAN_COPIES}) g where id = ${clean}`);
  const place = async (label: string, position: number, fields: Partial<ObservationDoc>) => {
    const id = `${clean}_${String(position).padStart(6, "0")}x`;
    await db.execute(sql`
      insert into observations (id, doc, created_at, updated_at, project_id, observatory_id, owner_id, status, priority, status_changed_at)
      select ${id}, doc || ${JSON.stringify(fields)}::jsonb, created_at, updated_at, project_id, observatory_id, owner_id, status, priority, status_changed_at
      from observations where id = ${clean}`);
    damaged[label] = id;
  };
  await place("stuckInProgress", 10, stuckFor("in_progress", 30));
  await place("testData", 4_321, { name: "Pipeline test run" });
  await place("missingProject", 12_345, { projectId: "prj_gone" });
  await place("capturedFiles", 20_001, { captured_files: ["a.fits"] });
  await place("badHistory", CLEAN_COPIES - 1, {});
  await observationHistoryCollection.insert(db, {
    observationId: damaged.badHistory!,
    from: "pending",
    to: "completed",
    at: hoursAgo(2),
    actor: { kind: "system", id: "import" },
    reason: null,
  });
  await place("missingName", CLEAN_COPIES - 2, {});
  await db.execute(sql`update observations set doc = doc - 'name' where id = ${damaged.missingName!}`);
}, 120_000);
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

async function scanToEnd(options: Record<string, unknown>) {
  const started = (await must(
    "/api/v1/admin/integrity/scans",
    { method: "POST", token: adminToken, json: { kind: "full", collections: ["observations"], deepScan: true, includeTestData: true, ...options } },
    202,
  )) as { id: string };
  const scan = await until(
    "the scan to complete",
    async () => {
      const current = (await must(`/api/v1/admin/integrity/scans/${started.id}`, { token: adminToken }, 200)) as {
        status: string;
        progress: { scanned: number };
      };
      return current.status === "completed" || current.status === "failed" ? current : undefined;
    },
    { timeoutMs: 150_000 },
  );
  const page = (await must(`/api/v1/admin/integrity/scans/${started.id}/issues?limit=200`, { token: adminToken }, 200)) as {
    items: Array<{ documentId: string; code: string }>;
  };
  return { scan, found: page.items.map((issue) => `${issue.documentId} ${issue.code}`).sort() };
}

describe("a scan of a large collection", () => {
  it("checks it in worker threads and reports each issue on its own document, and nothing on the clean ones", { timeout: 180_000 }, async () => {
    const { scan, found } = await scanToEnd({});
    expect(scan).toMatchObject({ status: "completed", progress: { scanned: CLEAN_COPIES + 1 + Object.keys(damaged).length } });
    expect(found).toEqual(
      [
        `${damaged.stuckInProgress} STUCK_IN_PROGRESS`,
        `${damaged.testData} TEST_DATA`,
        `${damaged.missingProject} MISSING_REFERENCE`,
        `${damaged.capturedFiles} DEPRECATED_CAPTURED_FILES`,
        `${damaged.badHistory} INVALID_TRANSITION`,
        `${damaged.missingName} MISSING_FIELD`,
      ].sort(),
    );
  });

  it("stops at the limit per collection, across batches read at once, and reports only what it read", { timeout: 180_000 }, async () => {
    // In id order: the clean original, then each copy, each damaged one right after its position.
    // Through position 12,345 that is 1 + 12,345 + 2 (positions 10 and 4,321): the next document,
    // at 12,345 and missing its project, is the first one left out.
    const { scan, found } = await scanToEnd({ limitPerCollection: 12_348 });
    expect(scan).toMatchObject({ status: "completed", progress: { scanned: 12_348 } });
    expect(found).toEqual([`${damaged.stuckInProgress} STUCK_IN_PROGRESS`, `${damaged.testData} TEST_DATA`].sort());
  });
});

import { filesCollection, observationsCollection, projectsCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { fileDocument, observationDocument } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";

// The spec's scan rules that no other file shows: the default limits per collection, a field of
// the wrong type, a project whose owner is gone, and an empty file as critical.
const ADMIN = { email: "integrity-spec-admin@example.com", password: "integrity spec admin password" };
const OBSERVATIONS = 105;
let server: TestServer;
let adminToken: string;
let owner: Account;
const seeded: Record<string, string> = {};
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { scanSchedule: { quick: null, full: null } } }, 200);
  owner = await createAccount(server);
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Limits" } }, 201)) as { id: string };
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Limits" } }, 201)) as { id: string };
  const db = server.server.runtime.deps.db;
  const doc = () => observationDocument({ projectId: project.id, observatoryId: observatory.id, ownerId: owner.id });
  await observationsCollection.insertMany(
    db,
    Array.from({ length: OBSERVATIONS - 1 }, () => doc()),
  );
  seeded.wrongType = (await observationsCollection.insert(db, doc())).id;
  // Written around the collection, as an old import would: the priority as words.
  await db.execute(sql`update observations set doc = jsonb_set(doc, '{priority}', '"high"') where id = ${seeded.wrongType}`);
  seeded.orphanedProject = (await projectsCollection.insert(db, { name: "Left behind", status: "active", ownerId: "usr_gone", organizationId: null })).id;
  const empty = fileDocument(seeded.wrongType, observatory.id, "empty.fits", { sizeBytes: 0 });
  await server.server.runtime.deps.storage.put(empty.objectKey, Buffer.alloc(0));
  seeded.emptyFile = (await filesCollection.insert(db, empty)).id;
});
afterAll(() => server?.stop());
const api = jsonApi(() => server);
const { must } = api;

interface Scan {
  id: string;
  status: string;
  progress: { scanned: number; total: number | null };
}
interface Issue {
  documentId: string;
  collection: string;
  code: string;
  severity: string;
  type: string;
}

const scanToEnd = (json: Record<string, unknown>) => api.scanToEnd<Scan>(json, adminToken);
const issuesOf = async (scanId: string) =>
  ((await must(`/api/v1/admin/integrity/scans/${scanId}/issues?limit=200`, { token: adminToken }, 200)) as { items: Issue[] }).items;
const countOf = async (table: string) =>
  (await server.server.runtime.deps.db.execute<{ count: number }>(sql.raw(`select count(*)::int as count from ${table}`)))[0]!.count;

describe("integrity scans as the spec sets them", () => {
  it("read at most 100 documents of each collection in a quick scan, and every one in a full scan", async () => {
    const [observations, projects] = [await countOf("observations"), await countOf("projects")];
    expect(observations).toBeGreaterThan(100);
    const quick = await scanToEnd({ kind: "quick" });
    expect(quick).toMatchObject({ status: "completed", progress: { scanned: 100 + Math.min(100, projects), total: 100 + Math.min(100, projects) } });
    const full = await scanToEnd({ kind: "full", collections: ["observations", "projects"] });
    expect(full).toMatchObject({ status: "completed", progress: { scanned: observations + projects, total: observations + projects } });
    // A limit given is kept, in either kind.
    const limited = await scanToEnd({ kind: "full", collections: ["observations"], limitPerCollection: 7 });
    expect(limited.progress).toMatchObject({ scanned: 7, total: 7 });
  });

  it("report a field of the wrong type, and a project whose owner does not exist, with their severities", async () => {
    const scan = await scanToEnd({ kind: "full", collections: ["observations", "projects"], deepScan: true });
    const issues = await issuesOf(scan.id);
    expect(issues.filter((issue) => issue.documentId === seeded.wrongType)).toEqual([
      expect.objectContaining({ code: "INVALID_FIELD", severity: "warning", type: "structure", collection: "observations" }),
    ]);
    expect(issues.filter((issue) => issue.documentId === seeded.orphanedProject)).toEqual([
      expect.objectContaining({ code: "MISSING_REFERENCE", severity: "critical", type: "reference", collection: "projects" }),
    ]);
  });

  it("report an empty file as critical (the spec's corrupted file entries)", async () => {
    const scan = await scanToEnd({ kind: "full", collections: ["files"], checkStorage: true });
    const issues = await issuesOf(scan.id);
    expect(issues.filter((issue) => issue.documentId === seeded.emptyFile)).toEqual([
      expect.objectContaining({ code: "EMPTY_FILE", severity: "critical", type: "file" }),
    ]);
  });
});

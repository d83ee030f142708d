import { createHash, randomUUID } from "node:crypto";
import {
  filesCollection,
  integrityScansCollection,
  observationHistoryCollection,
  observationsCollection,
  type FileDoc,
  type ObservationDoc,
} from "@meridian/db";
import { runIntegrityScan } from "@meridian/domain/integrity";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { deleteRows, expectCursorRefused, expectTrpcCursorRefused, foreignCursors, trpcQuery } from "../support/list-cursors";
import type { TestServer } from "../support/test-server";
import { duplicateFileRecords, fileDocument, hoursAgo, observationDocument, stuckFor } from "../support/observation-documents";
import { holdTable } from "../support/table-hold";
import { until } from "../support/until";
import { openWebSocket } from "../support/ws-client";
import { scanDoc } from "../support/integrity-scan-doc";

const ADMIN = { email: "integrity-admin@example.com", password: "integrity admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
const seeded: Record<string, string> = {};
let defaultSchedule: unknown;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  owner = await createAccount(server);
  defaultSchedule = ((await must("/api/v1/admin/settings", { token: adminToken }, 200)) as { scanSchedule: unknown }).scanSchedule;
  // No scheduled scan may start beside the ones these tests start (the default runs Sundays 03:00 UTC).
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { scanSchedule: { quick: null, full: null } } }, 200);
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Scanned" } }, 201)) as { id: string };
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Scanned" } }, 201)) as { id: string };
  const db = server.server.runtime.deps.db;
  const doc = (fields: Partial<ObservationDoc> = {}) =>
    observationDocument({ projectId: project.id, observatoryId: observatory.id, ownerId: owner.id }, fields);
  const insert = async (label: string, fields: Partial<ObservationDoc> = {}) => (seeded[label] = (await observationsCollection.insert(db, doc(fields))).id);
  await insert("clean");
  await insert("stuckInProgress", stuckFor("in_progress", 30));
  await insert("stuckAssigned", stuckFor("assigned", 50));
  await insert("capturedFiles", { captured_files: ["a.fits", "b.fits"] });
  await insert("testData", { name: "Pipeline test run" });
  await insert("badHistory");
  await observationHistoryCollection.insert(db, {
    observationId: seeded.badHistory!,
    from: "pending",
    to: "completed",
    at: hoursAgo(2),
    actor: { kind: "system", id: "import" },
    reason: null,
  });
  await insert("missingProject", { projectId: "prj_gone" });
  const broken = await insert("missingName");
  // A document written around the collection: its name is gone.
  await db.execute(sql`update observations set doc = doc - 'name' where id = ${broken}`);
});
afterAll(() => server?.stop());
const api = jsonApi(() => server);
const { must } = api;

interface Scan {
  id: string;
  status: string;
  progress: { scanned: number; total: number | null };
  summary: { critical: number; warning: number; info: number };
  jobId: string;
}
interface IssuePage {
  items: Array<{ id: string; severity: string; type: string; collection: string; documentId: string; code: string; autoFixable: boolean; fix: unknown }>;
  nextCursor: string | null;
  counts: Record<string, Record<string, number>>;
}

const scanToEnd = (json: Record<string, unknown>) => api.scanToEnd<Scan>(json, adminToken);
const issuesOf = async (scanId: string, query = "") =>
  (await must(`/api/v1/admin/integrity/scans/${scanId}/issues?limit=200${query}`, { token: adminToken }, 200)) as IssuePage;
const codesFor = (page: IssuePage, label: string) =>
  page.items
    .filter((issue) => issue.documentId === seeded[label])
    .map((issue) => issue.code)
    .sort();

describe("integrity scans", () => {
  it("are scheduled by default as the spec recommends: a quick scan weekly, a full one with storage monthly", () => {
    expect(defaultSchedule).toEqual({ quick: "0 3 * * 0", full: "0 4 1 * *" });
  });

  it("finds structure, status and data-quality issues in a quick scan, reporting progress to the admin who started it", async () => {
    const socket = await openWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${adminToken}` });
    const scan = await scanToEnd({ kind: "quick" });
    expect(scan.status).toBe("completed");
    expect(scan.progress.scanned).toBe(scan.progress.total);
    const page = await issuesOf(scan.id);
    expect(codesFor(page, "clean")).toEqual([]);
    expect(codesFor(page, "stuckInProgress")).toEqual(["STUCK_IN_PROGRESS"]);
    expect(codesFor(page, "stuckAssigned")).toEqual(["STUCK_ASSIGNED"]);
    expect(codesFor(page, "capturedFiles")).toEqual(["DEPRECATED_CAPTURED_FILES"]);
    expect(codesFor(page, "badHistory")).toEqual(["INVALID_TRANSITION"]);
    expect(codesFor(page, "missingName")).toEqual(["MISSING_FIELD"]);
    // Test data only when asked for; references only in a deep scan.
    expect(codesFor(page, "testData")).toEqual([]);
    expect(codesFor(page, "missingProject")).toEqual([]);
    const stuck = page.items.find((issue) => issue.documentId === seeded.stuckAssigned)!;
    expect(stuck).toMatchObject({
      severity: "warning",
      type: "status",
      autoFixable: true,
      fix: { changes: [{ field: "status", from: "assigned", to: "pending" }] },
    });
    const severity = page.counts.severity ?? {};
    expect(scan.summary).toEqual({ critical: severity.critical ?? 0, warning: severity.warning ?? 0, info: severity.info ?? 0 });
    await socket.waitFor(
      (message) =>
        message.type === "job.progress" &&
        (message.data as { id: string; status: string }).id === scan.jobId &&
        (message.data as { status: string }).status === "completed",
      "job.progress completed",
    );
    await socket.close();
  });

  it("filters issues by severity, type, collection and auto-fixable, with counts per value, and pages them", async () => {
    const scan = await scanToEnd({ kind: "quick" });
    const warnings = await issuesOf(scan.id, "&severity=warning");
    expect(warnings.items.length).toBeGreaterThan(0);
    expect(warnings.items.every((issue) => issue.severity === "warning")).toBe(true);
    const fixable = await issuesOf(scan.id, "&autoFixable=true&type=status");
    expect(fixable.items.map((issue) => issue.code).sort()).toEqual(["STUCK_ASSIGNED", "STUCK_IN_PROGRESS"]);
    expect(fixable.counts.type?.status).toBe(3);
    expect((await issuesOf(scan.id, "&collection=projects")).items).toEqual([]);
    const first = (await must(`/api/v1/admin/integrity/scans/${scan.id}/issues?limit=2`, { token: adminToken }, 200)) as IssuePage;
    const second = (await must(`/api/v1/admin/integrity/scans/${scan.id}/issues?limit=2&cursor=${first.nextCursor}`, { token: adminToken }, 200)) as IssuePage;
    expect(first.items).toHaveLength(2);
    expect(second.items.map((issue) => issue.id)).not.toContain(first.items[1]!.id);
  });

  it("lists issues most severe first, critical, warning, info, page after page, filters included", async () => {
    const scan = await scanToEnd({ kind: "full", collections: ["observations"], deepScan: true, includeTestData: true });
    expect(scan.summary.critical).toBeGreaterThan(0);
    expect(scan.summary.warning).toBeGreaterThan(0);
    expect(scan.summary.info).toBeGreaterThan(0);
    const rank = { critical: 0, warning: 1, info: 2 } as Record<string, number>;
    const pages = async (query: string) => {
      const seen: IssuePage["items"] = [];
      let cursor: string | null = null;
      do {
        const page = (await must(
          `/api/v1/admin/integrity/scans/${scan.id}/issues?limit=2${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          { token: adminToken },
          200,
        )) as IssuePage;
        seen.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      return seen;
    };
    const all = await pages("");
    expect(all).toHaveLength(scan.summary.critical + scan.summary.warning + scan.summary.info);
    expect(new Set(all.map((issue) => issue.id)).size).toBe(all.length);
    expect(all.map((issue) => rank[issue.severity])).toEqual(all.map((issue) => rank[issue.severity]).sort());
    const observationsOnly = await pages("&collection=observations&type=data_quality");
    expect(observationsOnly.map((issue) => issue.severity).every((severity) => severity === "info")).toBe(true);
    // The CSV export keeps the same order.
    const csv = await (await server.request(`/api/v1/admin/integrity/scans/${scan.id}/issues/export?format=csv`, { token: adminToken })).text();
    const severities = csv
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.split(",")[1]!);
    expect(severities).toEqual(all.map((issue) => issue.severity));
    await expectProblem(
      await server.request(`/api/v1/admin/integrity/scans/${scan.id}/issues?cursor=nonsense`, { token: adminToken }),
      400,
      "VALIDATION_FAILED",
    );
    // A made-up id after a real severity (the cursor's old form) is no place in the list either.
    for (const cursor of [...foreignCursors, `info:${all[0]!.id}`, "critical:zzzz"])
      await expectCursorRefused(
        await server.request(`/api/v1/admin/integrity/scans/${scan.id}/issues?cursor=${encodeURIComponent(cursor)}`, { token: adminToken }),
      );
  });

  it("gives each collection's real size: never none for a table with documents, counted while small", async () => {
    const { items } = (await must("/api/v1/admin/integrity/collections", { token: adminToken }, 200)) as {
      items: Array<{ name: string; estimatedDocuments: number; exact: boolean }>;
    };
    const [row] = await server.server.runtime.deps.db.execute<{ count: number }>(sql`select count(*)::int as count from observations`);
    expect(items.find((item) => item.name === "observations")).toEqual({ name: "observations", estimatedDocuments: row!.count, exact: true });
    expect(items.find((item) => item.name === "users")!.estimatedDocuments).toBeGreaterThanOrEqual(2);
  });

  it("records who started a scan: an administrator here, the schedule, the command line or a restore elsewhere", async () => {
    const scan = (await must(`/api/v1/admin/integrity/scans/${(await scanToEnd({ kind: "quick" })).id}`, { token: adminToken }, 200)) as Scan & {
      trigger: string;
      startedBy: string | null;
    };
    expect(scan).toMatchObject({ trigger: "manual", startedBy: expect.stringMatching(/^usr_/) });
  });

  it("checks references in a deep scan and reports test data when asked", async () => {
    const scan = await scanToEnd({ kind: "full", collections: ["observations"], deepScan: true, includeTestData: true });
    const page = await issuesOf(scan.id);
    expect(codesFor(page, "missingProject")).toEqual(["MISSING_REFERENCE"]);
    expect(page.items.find((issue) => issue.documentId === seeded.missingProject)).toMatchObject({ severity: "critical", type: "reference" });
    expect(codesFor(page, "testData")).toEqual(["TEST_DATA"]);
  });

  it("runs one scan of a kind at a time: a second answers 409 with the running one's id", async () => {
    const db = server.server.runtime.deps.db;
    const running = await integrityScansCollection.insert(
      db,
      scanDoc({
        kind: "full",
        options: { collections: ["users"], deepScan: false, checkStorage: false, checkHealth: false, limitPerCollection: null, includeTestData: false },
        status: "running",
      }),
    );
    const problem = await expectProblem(
      await server.request("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "full" } }),
      409,
      "SCAN_RUNNING",
    );
    expect(problem.detail).toContain(running.id);
    await integrityScansCollection.update(db, running.id, (doc) => ({ ...doc, status: "failed" }));
  });

  it("resumes a scan whose worker died from its last checkpoint, without repeating what it found", async () => {
    const deps = server.server.runtime.deps;
    const ids = Object.values(seeded).sort();
    const checkpointAt = ids[3]!;
    const scan = await integrityScansCollection.insert(
      deps.db,
      scanDoc({
        kind: "full",
        options: {
          collections: ["projects", "observations"],
          deepScan: false,
          checkStorage: false,
          checkHealth: false,
          limitPerCollection: null,
          includeTestData: false,
        },
        status: "running",
        progress: { collection: "observations", scanned: 4, total: null },
        checkpoint: { collection: "observations", afterId: checkpointAt },
      }),
    );
    await runIntegrityScan({ deps, scanId: scan.id });
    const page = await issuesOf(scan.id);
    expect(page.items.every((issue) => issue.collection === "observations" && issue.documentId > checkpointAt)).toBe(true);
    const after = (await must(`/api/v1/admin/integrity/scans/${scan.id}`, { token: adminToken }, 200)) as Scan;
    // The four it had done before the checkpoint, and the rest of the observations after it.
    expect(after).toMatchObject({ status: "completed", progress: { scanned: 4 + ids.filter((id) => id > checkpointAt).length } });
  });

  it("reads only the documents it counted: ones written while it runs wait for the next scan, so its progress never passes its total", async () => {
    const deps = server.server.runtime.deps;
    const scan = await integrityScansCollection.insert(
      deps.db,
      scanDoc({
        kind: "full",
        options: {
          collections: ["observations", "projects"],
          deepScan: false,
          checkStorage: false,
          checkHealth: false,
          limitPerCollection: null,
          includeTestData: false,
        },
      }),
    );
    const countOf = async (table: "observations" | "projects") =>
      (await deps.db.execute<{ count: number }>(sql`select count(*)::int as count from ${sql.identifier(table)}`))[0]!.count;
    const before = await countOf("observations");
    // The scan counts the observations, then waits to count the projects; two observations are written meanwhile.
    const hold = await holdTable(server.databaseUrl, "projects");
    let running: Promise<void>;
    try {
      running = runIntegrityScan({ deps, scanId: scan.id });
      await until("the scan to wait to count the projects", () => hold.waiting());
      const template = (await observationsCollection.get(deps.db, seeded.clean!))!.doc;
      for (let index = 0; index < 2; index += 1) await observationsCollection.insert(deps.db, { ...template, name: `Written mid-scan ${index}` });
    } finally {
      await hold.release();
    }
    await running!;
    const projects = await countOf("projects");
    const after = (await must(`/api/v1/admin/integrity/scans/${scan.id}`, { token: adminToken }, 200)) as Scan;
    expect(after).toMatchObject({ status: "completed", progress: { scanned: before + projects, total: before + projects } });
  });

  it("merges the storage listing with the file records: missing, orphan, mismatched, duplicate and unpreviewed files", async () => {
    const { db, storage } = server.server.runtime.deps;
    const prefix = `observations/${seeded.clean}`;
    const file = (name: string, fields: Partial<FileDoc> = {}) => fileDocument(seeded.clean!, "obs_x", name, fields);
    const files: Record<string, string> = {};
    const record = async (label: string, doc: FileDoc) => (files[label] = (await filesCollection.insert(db, doc)).id);
    await storage.put(`${prefix}/fine`, Buffer.from("12345"));
    const twice = await duplicateFileRecords(db, file("fine"));
    files.fine = twice.first.id;
    files.duplicate = twice.duplicate.id;
    await record("missing", file("missing"));
    await storage.put(`${prefix}/resized`, Buffer.from("123"));
    await record("resized", file("resized"));
    await storage.put(`${prefix}/orphan`, Buffer.from("nobody's"));
    await storage.put(`${prefix}/image.fits`, Buffer.from("12345"));
    await record("image", file("image.fits", { kind: "image" }));

    const scan = await scanToEnd({ kind: "full", collections: ["files"], checkStorage: true });
    const page = await issuesOf(scan.id, "&type=file");
    const byDocument = (id: string) => page.items.filter((issue) => issue.documentId === id).map((issue) => issue.code);
    expect(byDocument(files.fine!)).toEqual([]);
    expect(byDocument(files.duplicate!)).toEqual(["DUPLICATE_FILE_RECORD"]);
    expect(byDocument(files.missing!)).toEqual(["FILE_MISSING"]);
    expect(byDocument(files.resized!)).toEqual(["SIZE_MISMATCH"]);
    expect(byDocument(`${prefix}/orphan`)).toEqual(["ORPHAN_OBJECT"]);
    expect(byDocument(files.image!)).toEqual(["MISSING_PREVIEW"]);
    expect(page.items.find((issue) => issue.code === "ORPHAN_OBJECT")).toMatchObject({
      autoFixable: true,
      fix: { changes: [{ to: `quarantine/${prefix}/orphan` }] },
    });
  });

  it("recomputes checksums in a separate, rate-limited pass that finds corrupt objects and resumes from its checkpoint", async () => {
    const { db, storage } = server.server.runtime.deps;
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const prefix = `observations/${seeded.clean}/sums`;
    const files: string[] = [];
    for (const [name, stored, recorded] of [
      ["a-good", "good bytes", "good bytes"],
      ["b-rotten", "rotten bytes", "the bytes it had"],
      ["c-rotten", "more rot", "what it was"],
    ] as const) {
      await storage.put(`${prefix}/${name}`, Buffer.from(stored));
      files.push(
        (await filesCollection.insert(db, fileDocument(seeded.clean!, "obs_x", `sums/${name}`, { sizeBytes: stored.length, sha256: sha(recorded) }))).id,
      );
    }
    const mismatched = async (scanId: string) =>
      (await issuesOf(scanId, "&type=file")).items
        .filter((issue) => issue.code === "CHECKSUM_MISMATCH" && files.includes(issue.documentId))
        .map((issue) => issue.documentId);

    const scan = await scanToEnd({ kind: "full", collections: ["files"], checkStorage: true, verifyChecksums: true, checksumBytesPerSecond: 1024 * 1024 });
    expect((await mismatched(scan.id)).sort()).toEqual([files[1], files[2]].sort());
    const plain = await scanToEnd({ kind: "full", collections: ["files"], checkStorage: true });
    expect(await mismatched(plain.id)).toEqual([]);

    // A run that died after checking b: the retry goes on after it and finds only c.
    const resumed = await integrityScansCollection.insert(
      db,
      scanDoc({
        kind: "full",
        options: { ...(await integrityScansCollection.get(db, scan.id))!.doc.options },
        status: "running",
        progress: { collection: "checksums", scanned: 0, total: null },
        checkpoint: { collection: "(checksums)", afterId: JSON.stringify({ key: `${prefix}/b-rotten`, id: files[1] }) },
      }),
    );
    await runIntegrityScan({ deps: server.server.runtime.deps, scanId: resumed.id });
    expect(await mismatched(resumed.id)).toEqual([files[2]]);
  });

  it("exports a scan's issues as CSV and JSON, streamed, with the list's filters", async () => {
    const scan = await scanToEnd({ kind: "quick" });
    const all = await issuesOf(scan.id);
    const csv = await server.request(`/api/v1/admin/integrity/scans/${scan.id}/issues/export?format=csv`, { token: adminToken });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toContain(`integrity-${scan.id}.csv`);
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]).toBe("id,severity,type,collection,documentId,code,message,autoFixable,status,fix");
    expect(lines).toHaveLength(all.items.length + 1);
    const json = await server.request(`/api/v1/admin/integrity/scans/${scan.id}/issues/export?format=json&severity=warning`, { token: adminToken });
    const exported = (await json.json()) as Array<{ severity: string }>;
    expect(exported.length).toBe(all.items.filter((issue) => issue.severity === "warning").length);
    expect(exported.every((issue) => issue.severity === "warning")).toBe(true);
    await expectProblem(await server.request(`/api/v1/admin/integrity/scans/scn_${randomUUID()}/issues/export`, { token: adminToken }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/api/v1/admin/integrity/scans/${scan.id}/issues/export`, { token: owner.token }), 403, "FORBIDDEN");
  });

  it("finds duplicate and inconsistent targets, and files uploaded by another observatory than their observation's", async () => {
    const { db } = server.server.runtime.deps;
    const base = (await observationsCollection.get(db, seeded.clean!))!.doc;
    const rigel = base.targets[0]!;
    const twice = (await observationsCollection.insert(db, { ...base, name: "Twice", targets: [rigel, rigel] })).id;
    const moved = (await observationsCollection.insert(db, { ...base, name: "Moved", targets: [rigel, { ...rigel, ra: 100 }] })).id;
    const file = await filesCollection.insert(db, fileDocument(seeded.clean!, "obs_elsewhere", "x.fits", { sizeBytes: 1 }));
    const scan = await scanToEnd({ kind: "full", collections: ["observations", "files"] });
    const page = await issuesOf(scan.id);
    expect(page.items.filter((issue) => issue.documentId === twice).map((issue) => [issue.type, issue.code])).toEqual([["structure", "DUPLICATE_TARGET"]]);
    expect(page.items.filter((issue) => issue.documentId === moved).map((issue) => [issue.type, issue.code])).toEqual([["structure", "INCONSISTENT_TARGET"]]);
    expect(page.items.filter((issue) => issue.documentId === file.id).map((issue) => [issue.type, issue.code])).toEqual([
      ["data_quality", "FILE_OBSERVATORY_MISMATCH"],
    ]);
  });

  it("records each issue once when two runs of one scan overlap (a job retried while its first run still works)", async () => {
    const started = (await must("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "quick" } }, 202)) as Scan;
    const { deps } = server.server.runtime;
    // Beside the worker's own run: three runs of the same scan at once.
    await Promise.all([runIntegrityScan({ deps, scanId: started.id }), runIntegrityScan({ deps, scanId: started.id })]);
    const scan = await until("the scan to complete", async () => {
      const current = (await must(`/api/v1/admin/integrity/scans/${started.id}`, { token: adminToken }, 200)) as Scan;
      return current.status === "completed" ? current : undefined;
    });
    const page = await issuesOf(scan.id);
    const keys = page.items.map((issue) => `${issue.documentId} ${issue.code} ${JSON.stringify(issue.fix)}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(scan.summary.critical + scan.summary.warning + scan.summary.info).toBe(page.items.length);
  });

  it("lists scans newest first, going on past a scan deleted since its page was read, and refuses a cursor it never gave", async () => {
    const started: string[] = [];
    for (let index = 0; index < 4; index += 1) started.unshift((await scanToEnd({ kind: "quick", collections: ["projects"] })).id);
    const ids = (page: { items: Scan[] }) => page.items.map((item) => item.id);
    const first = (await must("/api/v1/admin/integrity/scans?limit=2", { token: adminToken }, 200)) as { items: Scan[]; nextCursor: string };
    expect(ids(first)).toEqual(started.slice(0, 2));
    await deleteRows(server.databaseUrl, "integrity_scans", [started[1]!]);
    const second = (await must(`/api/v1/admin/integrity/scans?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`, { token: adminToken }, 200)) as {
      items: Scan[];
    };
    expect(ids(second)).toEqual(started.slice(2, 4));
    const viaTrpc = await trpcData<{ items: Scan[] }>(
      await server.request(trpcQuery("integrity.scans", { limit: 2, cursor: first.nextCursor }), { token: adminToken }),
    );
    expect(ids(viaTrpc)).toEqual(started.slice(2, 4));

    for (const cursor of [...foreignCursors, started[2]!]) {
      await expectCursorRefused(await server.request(`/api/v1/admin/integrity/scans?cursor=${encodeURIComponent(cursor)}`, { token: adminToken }));
      await expectTrpcCursorRefused(await server.request(trpcQuery("integrity.scans", { cursor }), { token: adminToken }));
    }
  });

  it("is for server administrators only", async () => {
    await expectProblem(await server.request("/api/v1/admin/integrity/scans", { method: "POST", json: { kind: "quick" } }), 401, "UNAUTHENTICATED");
    await expectProblem(
      await server.request("/api/v1/admin/integrity/scans", { method: "POST", token: owner.token, json: { kind: "quick" } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(await server.request("/api/v1/admin/integrity/scans", { token: owner.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request(`/api/v1/admin/integrity/scans/scn_${randomUUID()}`, { token: adminToken }), 404, "NOT_FOUND");
    await expectProblem(
      await server.request("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "quick", collections: ["nope"] } }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(
      await server.request("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "weekly" } }),
      400,
      "VALIDATION_FAILED",
    );
  });
});

import { createHash, randomUUID } from "node:crypto";
import { filesCollection, integrityIssuesCollection, observationsCollection, type FileDoc, type ObservationDoc } from "@meridian/db";
import { legacyCapturedFileKey, purgeQuarantine, startScheduledScans } from "@meridian/domain/integrity";
import { reportStaleObservations } from "@meridian/domain/observations";
import { inTransaction, addJob } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { expectProblem } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { duplicateFileRecords, fileDocument, hoursAgo, observationDocument, stuckFor } from "../support/observation-documents";
import { useObservingSetup } from "../support/observing-hooks";
import { until } from "../support/until";
import { recordHeldJob } from "../support/held-jobs";
import { holdRows } from "../support/table-hold";

const ADMIN = { email: "repair-admin@example.com", password: "repair admin password" };
const setup = useObservingSetup(ADMIN, "Repaired");
const { must } = jsonApi(() => setup.server);

interface Scan {
  id: string;
  status: string;
  startedBy: string | null;
  summary: { critical: number; warning: number; info: number };
}
interface Issue {
  id: string;
  severity: string;
  documentId: string;
  code: string;
  autoFixable: boolean;
  status: string;
  fix: { description: string; changes: Array<Record<string, unknown>> } | null;
  repair?: { verified: boolean; by: string | null; result: Record<string, unknown> };
}

const insertObservation = async (fields: Partial<ObservationDoc> = {}) =>
  (
    await observationsCollection.insert(
      setup.deps().db,
      observationDocument(
        { projectId: setup.projectId, observatoryId: setup.observatoryId, ownerId: setup.owner.id },
        { name: `Repair ${randomUUID().slice(0, 8)}`, ...fields },
      ),
    )
  ).id;
const fileDoc = (observationId: string, name: string, fields: Partial<FileDoc> = {}) => fileDocument(observationId, setup.observatoryId, name, fields);

async function scanToEnd(json: Record<string, unknown>) {
  const started = (await must("/api/v1/admin/integrity/scans", { method: "POST", token: setup.adminToken, json }, 202)) as Scan;
  return waitForScan(started.id);
}
const waitForScan = (id: string) =>
  until("the scan to finish", async () => {
    const scan = (await must(`/api/v1/admin/integrity/scans/${id}`, { token: setup.adminToken }, 200)) as Scan;
    return scan.status === "completed" || scan.status === "failed" ? scan : undefined;
  });
const issuesOf = async (scanId: string, query = "") =>
  ((await must(`/api/v1/admin/integrity/scans/${scanId}/issues?limit=200${query}`, { token: setup.adminToken }, 200)) as { items: Issue[] }).items;
const issueFor = (issues: Issue[], documentId: string, code: string) => {
  const issue = issues.find((candidate) => candidate.documentId === documentId && candidate.code === code);
  if (!issue) throw new Error(`no ${code} issue for ${documentId}`);
  return issue;
};
const repair = (issueId: string, token = setup.adminToken) =>
  setup.server.request(`/api/v1/admin/integrity/issues/${issueId}/repair`, { method: "POST", token });
const observation = async (id: string) =>
  (await must(`/observations/${id}`, { token: setup.owner.token }, 200)) as { status: string; statusReason: string | null };

describe("integrity repair", () => {
  it("repairs a stuck observation through the transition table, audited, verified and recorded in its history", async () => {
    const assigned = await insertObservation(stuckFor("assigned", 50));
    const running = await insertObservation(stuckFor("in_progress", 30));
    const issues = await issuesOf((await scanToEnd({ kind: "full", collections: ["observations"] })).id);
    const stuck = issueFor(issues, assigned, "STUCK_ASSIGNED");
    expect(stuck.fix?.changes).toEqual([{ field: "status", from: "assigned", to: "pending", reason: "stuck assigned" }]);
    // The stale monitor's minute sweep may run here; it leaves observations it already reported
    // alone (a flag it added now would move updated_at, and the repair would answer 409).
    expect(await reportStaleObservations({ deps: setup.deps() })).not.toContain(assigned);

    const response = await repair(stuck.id);
    expect(response.status).toBe(200);
    const repaired = (await response.json()) as Issue;
    expect(repaired).toMatchObject({ id: stuck.id, status: "repaired", repair: { verified: true, result: { status: { from: "assigned", to: "pending" } } } });
    expect(await observation(assigned)).toMatchObject({ status: "pending" });
    const history = (await must(`/observations/${assigned}/history`, { token: setup.owner.token }, 200)) as {
      items: Array<{ from: string; to: string; reason: string }>;
    };
    expect(history.items.some((entry) => entry.from === "assigned" && entry.to === "pending" && /integrity repair/.test(entry.reason))).toBe(true);
    const audit = (await must(`/api/v1/admin/audit?targetId=${assigned}`, { token: setup.adminToken }, 200)) as { items: Array<{ action: string }> };
    expect(audit.items.map((entry) => entry.action)).toContain("integrity.issue_repaired");
    // Again: answered as it is, nothing moves twice.
    expect(((await (await repair(stuck.id)).json()) as Issue).status).toBe("repaired");

    const failed = (await (await repair(issueFor(issues, running, "STUCK_IN_PROGRESS").id)).json()) as Issue;
    expect(failed.status).toBe("repaired");
    expect(await observation(running)).toMatchObject({ status: "failed", statusReason: expect.stringContaining("stuck in progress") });
  });

  it("refuses a repair when the document changed since the scan, for issues that need a person, unknown issues and non-admins", async () => {
    const changing = await insertObservation(stuckFor("assigned", 60));
    const broken = await insertObservation();
    await setup.deps().db.execute(sql`update observations set doc = doc - 'name' where id = ${broken}`);
    const issues = await issuesOf((await scanToEnd({ kind: "full", collections: ["observations"] })).id);
    const stuck = issueFor(issues, changing, "STUCK_ASSIGNED");
    await must(`/observations/${changing}/cancel`, { method: "POST", token: setup.owner.token }, 200);

    await expectProblem(await repair(stuck.id), 409, "DOCUMENT_CHANGED");
    expect(await observation(changing)).toMatchObject({ status: "cancelled" });
    await expectProblem(await repair(issueFor(issues, broken, "MISSING_FIELD").id), 409, "NOT_AUTO_FIXABLE");
    await expectProblem(await repair(`iss_${randomUUID()}`), 404, "NOT_FOUND");
    await expectProblem(await repair(stuck.id, setup.owner.token), 403, "FORBIDDEN");
    await expectProblem(await setup.server.request(`/api/v1/admin/integrity/issues/${stuck.id}/repair`, { method: "POST" }), 401, "UNAUTHENTICATED");
    await expectProblem(await setup.server.request(`/api/v1/admin/integrity/scans/x/repair`, { method: "POST", token: setup.owner.token }), 403, "FORBIDDEN");
  });

  it("migrates captured_files into file records with their size and checksum, and drops the field", async () => {
    const legacy = await insertObservation({ captured_files: ["m31.fits", "lost.fits"] });
    const bytes = Buffer.from("SIMPLE  =                    T");
    await setup.deps().storage.put(legacyCapturedFileKey({ observationId: legacy, filename: "m31.fits" }), bytes, { contentType: "image/fits" });
    const issues = await issuesOf((await scanToEnd({ kind: "full", collections: ["observations"] })).id);
    const repaired = (await (await repair(issueFor(issues, legacy, "DEPRECATED_CAPTURED_FILES").id)).json()) as Issue;
    expect(repaired).toMatchObject({ status: "repaired", repair: { verified: true, result: { namesWithoutObject: ["lost.fits"] } } });

    const files = (await must(`/observations/${legacy}/files`, { token: setup.owner.token }, 200)) as { items: Array<Record<string, unknown>> };
    expect(files.items).toEqual([
      expect.objectContaining({
        filename: "m31.fits",
        sizeBytes: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
        contentType: "image/fits",
        kind: "image",
      }),
    ]);
    expect((await observationsCollection.get(setup.deps().db, legacy))!.doc.captured_files).toBeUndefined();
    const rescan = await issuesOf((await scanToEnd({ kind: "full", collections: ["observations"] })).id);
    expect(rescan.filter((issue) => issue.documentId === legacy && issue.code === "DEPRECATED_CAPTURED_FILES")).toEqual([]);
  });

  it("repairs every auto-fixable issue in bulk as a job: orphans quarantined, duplicate records removed, changed documents skipped", async () => {
    const withFiles = await insertObservation();
    const { db, storage } = setup.deps();
    const prefix = `observations/${withFiles}`;
    await storage.put(`${prefix}/kept`, Buffer.from("12345"));
    const { first, duplicate } = await duplicateFileRecords(db, fileDoc(withFiles, "kept"));
    await storage.put(`${prefix}/orphan`, Buffer.from("nobody's"));
    const stuck = await insertObservation(stuckFor("assigned", 70));
    const scan = await scanToEnd({ kind: "full", collections: ["observations", "files"], checkStorage: true });
    const fixable = (await issuesOf(scan.id, "&autoFixable=true")).filter((issue) => issue.status === "open");
    expect(fixable.map((issue) => issue.code)).toEqual(expect.arrayContaining(["ORPHAN_OBJECT", "DUPLICATE_FILE_RECORD", "STUCK_ASSIGNED"]));
    const before = (await must(`/api/v1/admin/integrity/scans/${scan.id}/issues?limit=1`, { token: setup.adminToken }, 200)) as { openAutoFixable: number };
    expect(before.openAutoFixable).toBe(fixable.length);
    // One document changes after the scan: the bulk repair skips it and says so.
    await must(`/observations/${stuck}/cancel`, { method: "POST", token: setup.owner.token }, 200);

    const { jobId } = (await must(`/api/v1/admin/integrity/scans/${scan.id}/repair`, { method: "POST", token: setup.adminToken }, 202)) as { jobId: string };
    const job = await until("the bulk repair to finish", async () => {
      const current = (await must(`/api/v1/admin/jobs/${jobId}`, { token: setup.adminToken }, 200)) as {
        status: string;
        progress: { done: number; total: number };
        result: { repaired: number; skipped: number; skippedIssues: Array<{ code: string }> } | null;
      };
      return current.status === "completed" || current.status === "failed" ? current : undefined;
    });
    expect(job).toMatchObject({ status: "completed", progress: { done: fixable.length, total: fixable.length } });
    expect(job.result).toMatchObject({ repaired: fixable.length - 1, skipped: 1, skippedIssues: [{ code: "DOCUMENT_CHANGED" }] });

    const after = (await must(`/api/v1/admin/integrity/scans/${scan.id}/issues?limit=1`, { token: setup.adminToken }, 200)) as { openAutoFixable: number };
    expect(after.openAutoFixable).toBe(1);
    expect(await storage.head(`${prefix}/orphan`)).toBeUndefined();
    expect(await storage.head(`quarantine/${prefix}/orphan`)).toEqual({ contentLength: 8 });
    expect(await filesCollection.get(db, duplicate.id)).toBeUndefined();
    expect(await filesCollection.get(db, first.id)).toBeDefined();
    expect(await storage.head(`${prefix}/kept`)).toEqual({ contentLength: 5 });

    // Quarantined objects go after 30 days, not before.
    expect(await purgeQuarantine({ deps: setup.deps() })).toEqual({ deleted: 0 });
    const later = { ...setup.deps(), now: () => new Date(Date.now() + 31 * 86_400_000) };
    expect((await purgeQuarantine({ deps: later })).deleted).toBeGreaterThanOrEqual(1);
    expect(await storage.head(`quarantine/${prefix}/orphan`)).toBeUndefined();
  });

  it("says what to do about a lost file and removes its record only when a person repairs that one issue, storage asked again first", async () => {
    const { db, storage } = setup.deps();
    const withLost = await insertObservation();
    const lost = await filesCollection.insert(db, fileDoc(withLost, "lost.fits"));
    const back = await filesCollection.insert(db, fileDoc(withLost, "back.fits"));
    const scan = await scanToEnd({ kind: "full", collections: ["files"], checkStorage: true });
    const issues = await issuesOf(scan.id, "&type=file");
    const missing = issueFor(issues, lost.id, "FILE_MISSING") as Issue & { nextStep?: string; observationId?: string };
    expect(missing).toMatchObject({ severity: "critical", autoFixable: false, observationId: withLost, fix: { changes: [{ delete: "files", id: lost.id }] } });
    expect(missing.nextStep).toMatch(/upload it again to its observation/);
    expect(missing.nextStep).toMatch(/S3_BUCKET/);

    // Never in bulk: a wrong bucket would make every file look lost.
    const { jobId } = (await must(`/api/v1/admin/integrity/scans/${scan.id}/repair`, { method: "POST", token: setup.adminToken }, 202)) as { jobId: string };
    await until("the bulk repair to finish", async () => {
      const job = (await must(`/api/v1/admin/jobs/${jobId}`, { token: setup.adminToken }, 200)) as { status: string };
      return job.status === "completed" || job.status === "failed" ? job : undefined;
    });
    expect(await filesCollection.get(db, lost.id)).toBeDefined();

    // An object that came back since the scan keeps its record.
    await storage.put(back.doc.objectKey, Buffer.from("12345"));
    await expectProblem(await repair(issueFor(issues, back.id, "FILE_MISSING").id), 409, "DOCUMENT_CHANGED");
    expect(await filesCollection.get(db, back.id)).toBeDefined();

    const repaired = (await must(`/api/v1/admin/integrity/issues/${missing.id}/repair`, { method: "POST", token: setup.adminToken }, 200)) as Issue;
    expect(repaired).toMatchObject({ status: "repaired", repair: { verified: true, result: { deletedFileId: lost.id, filename: "lost.fits" } } });
    expect(await filesCollection.get(db, lost.id)).toBeUndefined();
    const files = (await must(`/observations/${withLost}/files`, { token: setup.owner.token }, 200)) as { items: Array<{ id: string }>; lost: unknown[] };
    expect(files.items).toEqual([expect.objectContaining({ id: back.id })]);
    // The observation still says the file was there, was lost, and when: the scan that found it gone, the repair that removed it.
    const repairedAt = (repaired as Issue & { repair: { at: string } }).repair.at;
    expect(files.lost).toEqual([
      {
        fileId: lost.id,
        filename: "lost.fits",
        sizeBytes: lost.doc.sizeBytes,
        contentType: lost.doc.contentType,
        foundMissingAt: (await integrityIssuesCollection.get(db, missing.id))!.createdAt.toISOString(),
        removedAt: repairedAt,
      },
    ]);
  });

  it("stops a cancelled bulk repair before its next issue, leaves the rest open as they are, and a second repair finishes them", async () => {
    const stuck = await Promise.all(Array.from({ length: 4 }, () => insertObservation(stuckFor("assigned", 70))));
    const scan = await scanToEnd({ kind: "quick", collections: ["observations"] });
    const issues = await issuesOf(scan.id, "&autoFixable=true");
    const issueIds = stuck.map((id) => issueFor(issues, id, "STUCK_ASSIGNED").id);
    // Every stuck observation held: the first repair waits there, under way, while the job is cancelled.
    const hold = await holdRows(setup.server.databaseUrl, `select id from observations where id in (${stuck.map((id) => `'${id}'`).join(", ")}) for update`);
    let jobId: string;
    try {
      ({ jobId } = (await must(`/api/v1/admin/integrity/scans/${scan.id}/repair`, { method: "POST", token: setup.adminToken, json: { issueIds } }, 202)) as {
        jobId: string;
      });
      await until("the first repair to wait for its observation", () => hold.waiting());
      expect(await must(`/api/v1/admin/jobs/${jobId}/cancel`, { method: "POST", token: setup.adminToken }, 200)).toMatchObject({ status: "failed" });
    } finally {
      await hold.release();
    }
    await until("the cancelled attempt to end", async () => {
      const { db } = setup.deps();
      const [running] = await db.execute(sql`select 1 from graphile_worker._private_jobs where payload->>'jobId' = ${jobId!} and locked_at is not null`);
      return running === undefined;
    });
    const open = async () => (await issuesOf(scan.id, "&autoFixable=true")).filter((issue) => issueIds.includes(issue.id) && issue.status === "open");
    // The repair under way when the cancel came finished; none began after it.
    expect(await open()).toHaveLength(issueIds.length - 1);
    for (const issue of await open()) expect(await observation(issue.documentId)).toMatchObject({ status: "assigned" });

    const again = (await must(`/api/v1/admin/integrity/scans/${scan.id}/repair`, { method: "POST", token: setup.adminToken, json: { issueIds } }, 202)) as {
      jobId: string;
    };
    const job = await until("the second repair to finish", async () => {
      const current = (await must(`/api/v1/admin/jobs/${again.jobId}`, { token: setup.adminToken }, 200)) as {
        status: string;
        result: { repaired: number } | null;
      };
      return current.status === "completed" || current.status === "failed" ? current : undefined;
    });
    expect(job).toMatchObject({ status: "completed", result: { repaired: issueIds.length - 1, skipped: 0 } });
    expect(await open()).toEqual([]);
    for (const id of stuck) expect(await observation(id)).toMatchObject({ status: "pending" });
  });

  it("leaves no preview naming a record a repair removed, and a deep scan finds a preview whose original is gone", async () => {
    const { db, storage } = setup.deps();
    const withPreviews = await insertObservation();
    const preview = (original: string, name: string) => fileDoc(withPreviews, name, { kind: "preview", previewOfId: original });
    // A lost original with a preview, and a duplicate record a preview was made of.
    const lost = await filesCollection.insert(db, fileDoc(withPreviews, "lost-original.fits"));
    const ofLost = await filesCollection.insert(db, preview(lost.id, "lost-original.png"));
    const { first, duplicate } = await duplicateFileRecords(db, fileDoc(withPreviews, "twice.fits"));
    const ofDuplicate = await filesCollection.insert(db, preview(duplicate.id, "twice.png"));
    for (const file of [ofLost, first, ofDuplicate]) await storage.put(file.doc.objectKey, Buffer.from("12345"));

    const scan = await scanToEnd({ kind: "full", collections: ["files"], checkStorage: true });
    const issues = await issuesOf(scan.id, "&type=file");
    await must(`/api/v1/admin/integrity/issues/${issueFor(issues, lost.id, "FILE_MISSING").id}/repair`, { method: "POST", token: setup.adminToken }, 200);
    await must(
      `/api/v1/admin/integrity/issues/${issueFor(issues, duplicate.id, "DUPLICATE_FILE_RECORD").id}/repair`,
      { method: "POST", token: setup.adminToken },
      200,
    );
    expect((await filesCollection.get(db, ofLost.id))?.doc.previewOfId).toBeNull();
    expect((await filesCollection.get(db, ofDuplicate.id))?.doc.previewOfId).toBe(first.id);

    // One made dangling another way (a record removed by hand) is found by a deep scan.
    const dangling = await filesCollection.insert(db, preview("fil_gone", "dangling.png"));
    const deep = await scanToEnd({ kind: "full", collections: ["files"], deepScan: true });
    const references = (await issuesOf(deep.id, "&type=reference")).filter((issue) => issue.code === "MISSING_REFERENCE");
    expect(references.map((issue) => issue.documentId)).toContain(dangling.id);
    expect(references.map((issue) => issue.documentId)).not.toEqual(expect.arrayContaining([ofLost.id]));
    expect(references.map((issue) => issue.documentId)).not.toEqual(expect.arrayContaining([ofDuplicate.id]));
    await filesCollection.remove(db, dangling.id);
  });

  it("runs one bulk repair per scan at a time (409 REPAIR_RUNNING) and only on a finished scan", async () => {
    const scan = await scanToEnd({ kind: "quick" });
    const running = await recordHeldJob(setup.deps(), { kind: "integrity_repair", startedBy: null, subjectId: scan.id });
    const refused = await expectProblem(
      await setup.server.request(`/api/v1/admin/integrity/scans/${scan.id}/repair`, { method: "POST", token: setup.adminToken, json: {} }),
      409,
      "REPAIR_RUNNING",
    );
    expect(refused.detail).toContain(running.id);
    await expectProblem(
      await setup.server.request(`/api/v1/admin/integrity/scans/${scan.id}/repair`, { method: "POST", token: setup.adminToken, json: { issueIds: "all" } }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(
      await setup.server.request(`/api/v1/admin/integrity/scans/scn_${randomUUID()}/repair`, { method: "POST", token: setup.adminToken }),
      404,
      "NOT_FOUND",
    );
  });
});

describe("scheduled scans, health checks and the health summary", () => {
  it("starts the scheduled scans whose time has come, from admin settings, validated as cron", async () => {
    await expectProblem(
      await setup.server.request("/api/v1/admin/settings", {
        method: "PUT",
        token: setup.adminToken,
        json: { scanSchedule: { quick: "61 * * * *", full: null } },
      }),
      400,
      "VALIDATION_FAILED",
    );
    await must("/api/v1/admin/settings", { method: "PUT", token: setup.adminToken, json: { scanSchedule: { quick: "30 2 * * 3", full: null } } }, 200);
    expect(await startScheduledScans({ deps: setup.deps(), at: new Date("2026-11-25T02:31:00Z") })).toEqual([]);

    // The minute job, as graphile-worker's crontab runs it, for a Wednesday 02:30 UTC tick.
    await inTransaction(setup.deps(), (t) =>
      addJob({ t, name: "integrity_schedule", payload: { _cron: { ts: "2026-11-25T02:30:00.000Z", backfilled: false } } }),
    );
    const scheduled = await until("the scheduled quick scan", async () => {
      const { items } = (await must("/api/v1/admin/integrity/scans", { token: setup.adminToken }, 200)) as { items: Scan[] };
      return items.find((scan) => scan.startedBy === null);
    });
    expect(await waitForScan(scheduled.id)).toMatchObject({ status: "completed" });
  });

  it("reports a stale job queue as info, where the spec's severity table puts stale message queues", async () => {
    const { db } = setup.deps();
    // A job no worker knows how to run waits in the queue for ever: stale after five minutes.
    const [job] = await db.execute<{ id: string }>(
      sql`select id::text from graphile_worker.add_job('no_such_task', '{}'::json, run_at := now() - interval '10 minutes')`,
    );
    try {
      const scan = await scanToEnd({ kind: "full", collections: ["settings"], checkHealth: true });
      const stale = (await issuesOf(scan.id, "&collection=system")).find((issue) => issue.code === "JOB_QUEUE_STALE");
      expect(stale).toMatchObject({ severity: "info" });
    } finally {
      await db.execute(sql`select graphile_worker.complete_jobs(array[${job!.id}::bigint])`);
    }
  });

  it("tells server admins when a scheduled scan finds critical issues, and reports health findings", async () => {
    const { db } = setup.deps();
    const missingFile = await insertObservation();
    await filesCollection.insert(db, fileDoc(missingFile, "never-uploaded.fits"));
    const silent = ((await must("/observatories", { method: "POST", token: setup.owner.token, json: { name: "Silent" } }, 201)) as { id: string }).id;
    await db.execute(sql`update observatories set doc = jsonb_set(doc, '{connection,lastSeenAt}', to_jsonb(${hoursAgo(48)}::text)) where id = ${silent}`);
    await insertObservation({ observatoryId: silent });
    await must("/api/v1/admin/settings", { method: "PUT", token: setup.adminToken, json: { scanSchedule: { quick: null, full: "0 4 1 * *" } } }, 200);

    await db.transaction((tx) => addJob({ t: { tx }, name: "integrity_schedule", payload: { _cron: { ts: "2026-12-01T04:00:00.000Z", backfilled: false } } }));
    const scheduled = await until("the scheduled full scan", async () => {
      const { items } = (await must("/api/v1/admin/integrity/scans", { token: setup.adminToken }, 200)) as { items: Array<Scan & { kind: string }> };
      return items.find((scan) => scan.startedBy === null && scan.kind === "full");
    });
    const scan = await waitForScan(scheduled.id);
    expect(scan.summary.critical).toBeGreaterThan(0);
    const issues = await issuesOf(scan.id, "&type=status&collection=observatories");
    expect(issues.map((issue) => [issue.documentId, issue.code])).toContainEqual([silent, "OBSERVATORY_DISCONNECTED"]);
    const system = await issuesOf(scan.id, "&collection=system");
    expect(system.map((issue) => issue.code)).not.toContain("STORAGE_UNREACHABLE");
    expect(system.map((issue) => issue.code)).not.toContain("WEBSOCKET_DOWN");

    const notices = await until("the admins' notice", async () => {
      const rows = await db.execute<{ subject: string }>(sql`select doc->>'subject' as subject from email_outbox where doc->>'kind' = 'integrity_critical'`);
      return rows.length > 0 ? rows : undefined;
    });
    expect(notices[0]!.subject).toMatch(/critical issue/);

    const asAdmin = (await (await setup.server.request("/api/health", { token: setup.adminToken })).json()) as {
      integrity?: { latestScan: { id: string } | null };
    };
    expect(asAdmin.integrity?.latestScan?.id).toBe(scan.id);
    expect(await (await setup.server.request("/api/health")).json()).not.toHaveProperty("integrity");
    expect(await (await setup.server.request("/api/health", { token: setup.owner.token })).json()).not.toHaveProperty("integrity");
  });

  it("reports an observatory disconnected only for work that no other connected candidate can take", async () => {
    const { db } = setup.deps();
    const observatory = async (name: string, connection: { online: boolean; lastSeenAt: string }) => {
      const { id } = (await must("/observatories", { method: "POST", token: setup.owner.token, json: { name } }, 201)) as { id: string };
      await db.execute(
        sql`update observatories set doc = jsonb_set(doc, '{connection}', doc->'connection' || ${JSON.stringify(connection)}::jsonb) where id = ${id}`,
      );
      return id;
    };
    const gone = await observatory("Gone", { online: false, lastSeenAt: hoursAgo(48) });
    const alsoGone = await observatory("Also gone", { online: false, lastSeenAt: hoursAgo(48) });
    const connected = await observatory("Connected", { online: true, lastSeenAt: hoursAgo(0) });
    const disconnectedIssues = async () => {
      const scan = await scanToEnd({ kind: "full", collections: ["settings"], checkHealth: true });
      return (await issuesOf(scan.id, "&type=status&collection=observatories")).filter((issue) => issue.code === "OBSERVATORY_DISCONNECTED");
    };
    // Waiting with a connected candidate (pending at none, or assigned at the gone one, which the failover moves): not stuck.
    await insertObservation({ observatoryId: null, candidateObservatoryIds: [gone, connected], status: "pending" });
    await insertObservation({ observatoryId: gone, candidateObservatoryIds: [gone, connected], status: "assigned" });
    expect((await disconnectedIssues()).map((issue) => issue.documentId)).not.toContain(gone);
    // Waiting with candidates none of which is connected: stuck at each of them.
    await insertObservation({ observatoryId: null, candidateObservatoryIds: [gone, alsoGone], status: "pending" });
    const stuck = await disconnectedIssues();
    const reportedAt = stuck.filter((issue) => issue.documentId === gone || issue.documentId === alsoGone);
    expect(reportedAt.map((issue) => [issue.documentId, issue.severity]).sort()).toEqual(
      [
        [gone, "warning"],
        [alsoGone, "warning"],
      ].sort(),
    );
    expect((stuck.find((issue) => issue.documentId === gone) as Issue & { message: string }).message).toMatch(/with 1 observations waiting/);
  });
});

import { createHash } from "node:crypto";
import {
  candidateObservatoryIdsOf,
  filesCollection,
  integrityIssuesCollection,
  observationsCollection,
  StorageCallUnsupported,
  type Executor,
  type FileDoc,
  type IncompleteUpload,
  type IntegrityIssueDoc,
  type LostFile,
  type ObservationDoc,
  type StoredDocument,
} from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Actor, UserActor } from "../../platform/actor";
import { recordAudit } from "../audit";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { fileKindOf } from "../observations";
import { moveObservation } from "../observations";
import { readServerSettings } from "../system";
import { queueAnalysisAgain } from "../frames";
import { observationQualityFindings, observationStatusFindings } from "./checks";
import { frameLeftQueued } from "./frame-checks";
import { presentIssue } from "./queries";
import { inTransaction, type InTransaction } from "../../platform/transaction";

type Issue = StoredDocument<IntegrityIssueDoc>;
type RepairResult = Record<string, unknown>;

const QUARANTINE_PREFIX = "quarantine/";
/** Where observations from before file records kept their captured files. */
export const legacyCapturedFileKey = ({ observationId, filename }: { observationId: string; filename: string }) => `observations/${observationId}/${filename}`;

/**
 * Repairs one issue, the way its `fix` says, through the same domain functions as the API (the
 * transition table, the file records), and verifies it by re-running the issue's check on the
 * document. Refuses with 409 DOCUMENT_CHANGED when the document changed since the scan, and with
 * 409 NOT_AUTO_FIXABLE for an issue without a fix. An issue whose fix is not auto-fixable (a lost
 * file's record) is repaired here, one at a time, and never by the bulk repair. A repaired issue
 * is answered as it is.
 */
export async function repairIntegrityIssue(options: { deps: Deps; actor: UserActor | Actor; issueId: string }) {
  const { deps, actor, issueId } = options;
  const issue = await integrityIssuesCollection.get(deps.db, issueId);
  if (!issue) throw new AppError("NOT_FOUND", "No such issue");
  if (issue.doc.status === "repaired") return presentIssue(issue);
  if (!issue.doc.autoFixable && !issue.doc.fix) throw new AppError("NOT_AUTO_FIXABLE", `${issue.doc.code} needs a person: ${issue.doc.message}`);
  const repaired = await repairers[issue.doc.code]?.(deps, actor, issue);
  if (!repaired) throw new AppError("NOT_AUTO_FIXABLE", `No automatic repair for ${issue.doc.code}`);
  return presentIssue(repaired);
}

type Repairer = (deps: Deps, actor: Actor, issue: Issue) => Promise<Issue>;

const repairers: Record<string, Repairer> = {
  STUCK_ASSIGNED: (deps, actor, issue) => moveStuck(deps, actor, issue, "assigned", "pending", "stuck in assigned; returned to pending by an integrity repair"),
  STUCK_IN_PROGRESS: (deps, actor, issue) => moveStuck(deps, actor, issue, "in_progress", "failed", "stuck in progress; failed by an integrity repair"),
  DEPRECATED_CAPTURED_FILES: migrateCapturedFiles,
  DUPLICATE_FILE_RECORD: removeDuplicateRecord,
  ORPHAN_OBJECT: quarantineOrphan,
  INCOMPLETE_UPLOAD: abortListedUploads,
  FILE_MISSING: removeLostFileRecord,
  FRAME_NOT_ANALYSED: analyseLeftFrame,
};

/** The issue, locked for this repair: a second repair of it at once waits, then finds it repaired. */
async function lockIssue(db: Executor, issue: Issue) {
  const locked = await integrityIssuesCollection.get(db, issue.id, { forUpdate: true });
  return locked?.doc.status === "repaired" ? locked : undefined;
}

/** The document as the scan saw it, locked; 409 when it is gone or changed since. */
async function lockUnchanged<Doc>(db: Executor, issue: Issue, load: (db: Executor) => Promise<StoredDocument<Doc> | undefined>) {
  const current = await load(db);
  if (!current) throw new AppError("DOCUMENT_CHANGED", `${issue.doc.collection} ${issue.doc.documentId} no longer exists; scan again`);
  if (issue.doc.documentUpdatedAt && current.updatedAt.toISOString() !== issue.doc.documentUpdatedAt)
    throw new AppError("DOCUMENT_CHANGED", `${issue.doc.collection} ${issue.doc.documentId} changed since the scan; scan again before repairing it`);
  return current;
}

/** Marks the issue repaired and writes the audit entry, in the repair's transaction. */
async function markRepaired(
  t: Pick<InTransaction, "tx" | "now">,
  actor: Actor,
  issue: Issue,
  result: RepairResult,
  verified: boolean,
  at = t.now().toISOString(),
) {
  const updated = await integrityIssuesCollection.update(t.tx, issue.id, (doc) => ({
    ...doc,
    status: "repaired",
    repair: { at, by: actor.kind === "user" ? actor.id : null, verified, result },
  }));
  await recordAudit({
    t,
    actor: actor.kind === "user" ? actor : null,
    action: "integrity.issue_repaired",
    target: { kind: issue.doc.collection, id: issue.doc.documentId, name: issue.doc.code },
    scope: { kind: "system", id: "system", name: null },
    before: { issueId: issue.id, scanId: issue.doc.scanId, fix: issue.doc.fix },
    after: { ...result, verified },
  });
  return updated!;
}

/** A repair whose check still finds the issue afterwards is rolled back: nothing half-done stays. */
function unverified(issue: Issue): never {
  throw new AppError("CONFLICT", `The repair of ${issue.doc.code} did not hold (the check still finds it), so nothing was changed`);
}

async function moveStuck(deps: Deps, actor: Actor, issue: Issue, from: "assigned" | "in_progress", to: "pending" | "failed", reason: string) {
  return inTransaction(deps, async (t) => {
    const done = await lockIssue(t.tx, issue);
    if (done) return done;
    const observation = await lockUnchanged(t.tx, issue, (db) => observationsCollection.get(db, issue.doc.documentId, { forUpdate: true }));
    if (observation.doc.status !== from) throw new AppError("DOCUMENT_CHANGED", `The observation is ${observation.doc.status} now, not ${from}`);
    const moved = await moveObservation({ t, observation, to, actor, reason });
    const settings = await readServerSettings(t.tx);
    if (observationStatusFindings({ doc: moved.doc, history: [], settings, now: t.now() }).some((finding) => finding.code === issue.doc.code))
      unverified(issue);
    return markRepaired(t, actor, issue, { status: { from, to: moved.doc.status }, reason }, true);
  });
}

/**
 * A frame left queued is analysed again, through the same step as `POST /files/{id}/analyse`: a
 * fresh analysis id and one job (its key replaces a waiting job of the frame). Verified by the
 * check no longer finding it, the frame queued anew.
 */
async function analyseLeftFrame(deps: Deps, actor: Actor, issue: Issue) {
  return inTransaction(deps, async (t) => {
    const done = await lockIssue(t.tx, issue);
    if (done) return done;
    const file = await lockUnchanged(t.tx, issue, (db) => filesCollection.get(db, issue.doc.documentId, { forUpdate: true }));
    if (file.doc.frame?.status !== "queued") throw new AppError("DOCUMENT_CHANGED", `The frame is ${file.doc.frame?.status ?? "no frame"} now, not queued`);
    const queued = await queueAnalysisAgain({ t, file });
    if (queued.doc.frame?.status !== "queued" || frameLeftQueued({ queuedSince: queued.updatedAt, now: t.now() })) unverified(issue);
    return markRepaired(t, actor, issue, { analysisId: queued.doc.frame.analysisId, queuedAt: queued.updatedAt.toISOString() }, true);
  });
}

/** Each captured file name whose object is in storage becomes a file record; the field goes. */
async function migrateCapturedFiles(deps: Deps, actor: Actor, issue: Issue) {
  const before = await observationsCollection.get(deps.db, issue.doc.documentId);
  const names = before?.doc.captured_files ?? [];
  // Read storage before the transaction: hashing objects must not hold a row lock.
  const found: Array<{ filename: string; objectKey: string; sizeBytes: number; sha256: string; contentType: string }> = [];
  const missing: string[] = [];
  for (const filename of new Set(names)) {
    const objectKey = legacyCapturedFileKey({ observationId: issue.doc.documentId, filename });
    const object = await deps.storage.get(objectKey);
    if (!object) {
      missing.push(filename);
      continue;
    }
    const hash = createHash("sha256");
    let sizeBytes = 0;
    for await (const chunk of object.body) {
      hash.update(chunk as Uint8Array);
      sizeBytes += (chunk as Uint8Array).length;
    }
    found.push({ filename, objectKey, sizeBytes, sha256: hash.digest("hex"), contentType: object.contentType ?? "application/octet-stream" });
  }
  return inTransaction(deps, async (t) => {
    const done = await lockIssue(t.tx, issue);
    if (done) return done;
    const observation = await lockUnchanged<ObservationDoc>(t.tx, issue, (db) => observationsCollection.get(db, issue.doc.documentId, { forUpdate: true }));
    const known = await t.tx.execute<{ object_key: string }>(sql`select object_key from files where observation_id = ${observation.id}`);
    const recorded = new Set(known.map((row) => row.object_key));
    const created: string[] = [];
    for (const file of found) {
      if (recorded.has(file.objectKey)) continue;
      const record = await filesCollection.insert(t.tx, {
        observationId: observation.id,
        // Old documents name one observatory; one with candidates, the one it ran at (else its first).
        observatoryId: observation.doc.observatoryId ?? candidateObservatoryIdsOf(observation.doc)[0]!,
        filename: file.filename,
        sizeBytes: file.sizeBytes,
        sha256: file.sha256,
        contentType: file.contentType,
        kind: fileKindOf({ filename: file.filename, contentType: file.contentType }),
        previewOfId: null,
        objectKey: file.objectKey,
      });
      created.push(record.id);
    }
    const updated = await observationsCollection.update(t.tx, observation.id, ({ captured_files: _dropped, ...doc }) => doc);
    if (observationQualityFindings({ id: updated!.id, doc: updated!.doc, includeTestData: false }).some((finding) => finding.code === issue.doc.code))
      unverified(issue);
    // Names without an object are kept in the audit entry, so nothing the field said is lost.
    return markRepaired(t, actor, issue, { createdFileIds: created, namesWithoutObject: missing, droppedField: "captured_files" }, true);
  });
}

async function removeDuplicateRecord(deps: Deps, actor: Actor, issue: Issue) {
  return inTransaction(deps, async (t) => {
    const done = await lockIssue(t.tx, issue);
    if (done) return done;
    const record = await lockUnchanged(t.tx, issue, (db) => filesCollection.get(db, issue.doc.documentId, { forUpdate: true }));
    // The record that stays is the first one for the key, in the order the scan met them.
    const [first] = await t.tx.execute<{ id: string }>(sql`
      select id from files where object_key = ${record.doc.objectKey} and id <> ${record.id} order by id limit 1 for update`);
    if (!first) throw new AppError("DOCUMENT_CHANGED", "It is the only record for its object now; scan again");
    // Its previews are of the same object: they follow it to the record that stays rather than name one that is gone.
    const repointed = await filesCollection.patch<{ id: string }>(t.tx, sql`a.doc->>'previewOfId' = ${record.id}`, { previewOfId: first.id });
    await filesCollection.remove(t.tx, record.id);
    if (await filesCollection.get(t.tx, record.id)) unverified(issue);
    const previews = repointed.map((row) => row.id);
    return markRepaired(t, actor, issue, { deletedFileId: record.id, kept: first.id, objectKey: record.doc.objectKey, previewsMovedTo: previews }, true);
  });
}

/** A lost file's record goes, once storage is asked again and still has no object for it. */
async function removeLostFileRecord(deps: Deps, actor: Actor, issue: Issue) {
  const seen = await filesCollection.get(deps.db, issue.doc.documentId);
  // Storage is asked outside the transaction, so a slow store holds no row lock.
  if (seen && (await deps.storage.head(seen.doc.objectKey)))
    throw new AppError("DOCUMENT_CHANGED", `${seen.doc.objectKey} is in storage again; the record stays. Scan again`);
  return inTransaction(deps, async (t) => {
    const done = await lockIssue(t.tx, issue);
    if (done) return done;
    // The observation before its file, in the order its other writers (uploads, deletions) take them.
    if (issue.doc.observationId) await observationsCollection.get(t.tx, issue.doc.observationId, { forUpdate: true });
    const record = await lockUnchanged(t.tx, issue, (db) => filesCollection.get(db, issue.doc.documentId, { forUpdate: true }));
    // Its previews keep their own bytes, but no longer name a record that is gone.
    const detached = await filesCollection.patch<{ id: string }>(t.tx, sql`a.doc->>'previewOfId' = ${record.id}`, { previewOfId: null });
    await filesCollection.remove(t.tx, record.id);
    if (await filesCollection.get(t.tx, record.id)) unverified(issue);
    const { filename, objectKey, observationId } = record.doc;
    const removedAt = t.now().toISOString();
    await rememberLostFile(t, { record, foundMissingAt: issue.createdAt.toISOString(), removedAt });
    const previews = detached.map((row) => row.id);
    const result = { deletedFileId: record.id, filename, objectKey, observationId, previewsDetached: previews };
    return markRepaired(t, actor, issue, result, true, removedAt);
  });
}

/** The observation keeps a line about the file whose record went (a preview's thumbnail aside: its original says enough). */
async function rememberLostFile(t: Pick<InTransaction, "tx">, options: { record: StoredDocument<FileDoc>; foundMissingAt: string; removedAt: string }) {
  const { record, foundMissingAt, removedAt } = options;
  if (record.doc.kind === "preview") return;
  const { filename, sizeBytes, contentType } = record.doc;
  const lost: LostFile = { fileId: record.id, filename, sizeBytes, contentType, foundMissingAt, removedAt };
  await observationsCollection.update(t.tx, record.doc.observationId, (doc) => ({ ...doc, lostFiles: [...(doc.lostFiles ?? []), lost] }));
}

/**
 * An orphan object moves to `quarantine/` (purged after 30 days) instead of being deleted. Crash
 * safe: copy first, delete the original after; a rerun finds the copy and finishes.
 */
async function quarantineOrphan(deps: Deps, actor: Actor, issue: Issue) {
  const key = issue.doc.documentId;
  const target = `${QUARANTINE_PREFIX}${key}`;
  const [owner] = await deps.db.execute<{ id: string }>(sql`select id from files where object_key = ${key} limit 1`);
  if (owner) throw new AppError("DOCUMENT_CHANGED", `File record ${owner.id} names ${key} now; it is no longer an orphan`);
  const original = await deps.storage.head(key);
  if (original) await deps.storage.copy(key, target);
  else if (!(await deps.storage.head(target))) throw new AppError("DOCUMENT_CHANGED", `${key} is no longer in storage`);
  await deps.storage.delete(key);
  const verified = !(await deps.storage.head(key)) && Boolean(await deps.storage.head(target));
  if (!verified) unverified(issue);
  return inTransaction(
    deps,
    async (t) => (await lockIssue(t.tx, issue)) ?? markRepaired(t, actor, issue, { movedTo: target, sizeBytes: original?.contentLength ?? null }, verified),
  );
}

/**
 * Whether an upload is still there, and the bytes its parts hold (ListParts). A store without
 * ListParts is asked through ListMultipartUploads instead, and the bytes are then unknown (null).
 */
async function heldBy(deps: Deps, upload: Pick<IncompleteUpload, "key" | "uploadId">): Promise<{ bytes: number | null } | undefined> {
  try {
    const bytes = await deps.storage.uploadedBytes(upload);
    return bytes === undefined ? undefined : { bytes };
  } catch (error) {
    if (!(error instanceof StorageCallUnsupported)) throw error;
  }
  for await (const page of deps.storage.listIncompleteUploads(upload.key))
    if (page.some((found) => found.key === upload.key && found.uploadId === upload.uploadId)) return { bytes: null };
  return undefined;
}

/**
 * Aborts the incomplete multipart uploads the issue lists, which deletes their parts. An upload
 * completed or aborted since is left as it is; verified by none of them being there afterwards.
 * On a store without ListParts the bytes freed are not counted (`bytes` counts those it could size).
 */
async function abortListedUploads(deps: Deps, actor: Actor, issue: Issue) {
  const listed = (issue.doc.fix?.changes ?? []).flatMap((change) =>
    typeof change.abortUpload === "string" && typeof change.uploadId === "string" ? [{ key: change.abortUpload, uploadId: change.uploadId }] : [],
  );
  let aborted = 0;
  let bytes = 0;
  let unsized = 0;
  for (const upload of listed) {
    const held = await heldBy(deps, upload);
    if (!held) continue;
    await deps.storage.abortUpload(upload);
    aborted += 1;
    if (held.bytes === null) unsized += 1;
    else bytes += held.bytes;
  }
  for (const upload of listed) if (await heldBy(deps, upload)) unverified(issue);
  const result = { aborted, alreadyGone: listed.length - aborted, bytes, ...(unsized > 0 ? { unsized } : {}) };
  return inTransaction(deps, async (t) => (await lockIssue(t.tx, issue)) ?? markRepaired(t, actor, issue, result, true));
}

/** Deletes quarantined objects older than `days` (the `purge_quarantine` job, daily). */
export async function purgeQuarantine(options: { deps: Deps; days?: number }) {
  const { deps } = options;
  const cutoff = deps.now().getTime() - (options.days ?? 30) * 86_400_000;
  let deleted = 0;
  for await (const page of deps.storage.list(QUARANTINE_PREFIX))
    for (const object of page)
      if (object.lastModified && object.lastModified.getTime() < cutoff) {
        await deps.storage.delete(object.key);
        deleted += 1;
      }
  return { deleted };
}

// The collections alone: a check thread starts without the storage client and the rest of @meridian/db.
import type { ObservationDoc, ObservationHistoryDoc } from "@meridian/db";
import { collections } from "@meridian/db/collections";
import type { ServerSettings } from "../system";
import { observationQualityFindings, observationStatusFindings, structureFindings, targetFindings, type Finding } from "./checks";
import type { FrameCandidates } from "./frame-checks";

export type CollectionName = keyof typeof collections;

/** What each document refers to, checked by a deep scan: field, target collection, and the id it holds. */
const references: Partial<Record<CollectionName, (doc: Record<string, unknown>) => Array<[string, CollectionName, unknown]>>> = {
  observations: (doc) => [
    ["projectId", "projects", doc.projectId],
    ["observatoryId", "observatories", doc.observatoryId],
    ["ownerId", "users", doc.ownerId],
    ...(Array.isArray(doc.candidateObservatoryIds) ? doc.candidateObservatoryIds : []).map((id: unknown, index): [string, CollectionName, unknown] => [
      `candidateObservatoryIds.${index}`,
      "observatories",
      id,
    ]),
  ],
  projects: (doc) => [
    ["ownerId", "users", doc.ownerId],
    ["organizationId", "organizations", doc.organizationId],
  ],
  project_members: (doc) => [
    ["projectId", "projects", doc.projectId],
    ["userId", "users", doc.userId],
  ],
  organization_members: (doc) => [
    ["organizationId", "organizations", doc.organizationId],
    ["userId", "users", doc.userId],
  ],
  observatory_members: (doc) => [
    ["observatoryId", "observatories", doc.observatoryId],
    ["memberId", doc.memberKind === "organization" ? "organizations" : "users", doc.memberId],
  ],
  files: (doc) => [
    ["observationId", "observations", doc.observationId],
    ["previewOfId", "files", doc.previewOfId],
  ],
};

/**
 * A batch's documents as a scan reads them: their JSON text in one buffer, one per line (handed to
 * a check thread without a copy, and decoded and parsed there), and an observation's history
 * entries in order, each as JSON text.
 */
export interface ScannedDocuments {
  ids: string[];
  text: Uint8Array;
  history: Array<string[] | null> | null;
}

export interface DocumentBatch {
  collection: CollectionName;
  documents: ScannedDocuments;
  includeTestData: boolean;
  deepScan: boolean;
  settings: ServerSettings;
  now: string;
}

/** What a batch's documents say on their own; `index` is the document's place in the batch. */
export interface DocumentBatchResult {
  findings: Array<{ index: number; finding: Finding }>;
  /** For a deep scan: the ids each document refers to, looked up by the scan in the database. */
  references: Array<{ index: number; field: string; target: CollectionName; id: string }>;
  /** A file record's observation and uploading observatory, compared by the scan with the observation's. */
  fileLinks: Array<{ index: number; observationId: string; observatoryId: string }>;
  /** Frames still queued, and completed observations, whose frames the scan looks at in the database. */
  frames: FrameCandidates;
}

/**
 * Every check that needs nothing but the document (and an observation's history): structure
 * against the collection's schema, stuck or forbidden statuses, test data, repeated targets. Pure,
 * so a scan runs it in worker threads for a large collection and in its own thread for a small one.
 */
export function checkDocuments(batch: DocumentBatch): DocumentBatchResult {
  const result: DocumentBatchResult = { findings: [], references: [], fileLinks: [], frames: { queuedFrames: [], completedObservations: [] } };
  const schema = collections[batch.collection].schema;
  const now = new Date(batch.now);
  const referencesOf = batch.deepScan ? references[batch.collection] : undefined;
  const { ids, history: histories } = batch.documents;
  const text = Buffer.from(batch.documents.text.buffer, batch.documents.text.byteOffset, batch.documents.text.byteLength);
  // One loop and no closure per document: this runs a million times in a full scan.
  let start = 0;
  for (let index = 0; index < ids.length; index += 1) {
    const id = ids[index]!;
    const newline = text.indexOf(10, start);
    const end = newline === -1 ? text.length : newline;
    const doc = JSON.parse(text.toString("utf8", start, end)) as Record<string, unknown>;
    start = end + 1;
    const found: Finding[] = structureFindings({ schema, doc });
    if (batch.collection === "observations") {
      const observation = doc as unknown as ObservationDoc;
      if (typeof observation.status === "string" && typeof observation.statusChangedAt === "string") {
        const history = (histories?.[index] ?? []).map((entry) => JSON.parse(entry) as ObservationHistoryDoc);
        found.push(...observationStatusFindings({ doc: observation, history, settings: batch.settings, now }));
      }
      if (typeof observation.name === "string") found.push(...observationQualityFindings({ id, doc: observation, includeTestData: batch.includeTestData }));
      // One target cannot repeat itself: most observations skip this.
      if (
        Array.isArray(observation.targets) &&
        observation.targets.length > 1 &&
        observation.targets.every((target) => target && typeof target.name === "string")
      )
        found.push(...targetFindings(observation));
      if (observation.status === "completed" && typeof observation.projectId === "string")
        result.frames.completedObservations.push({ index, projectId: observation.projectId });
    }
    for (const finding of found) result.findings.push({ index, finding });
    if (batch.collection === "files" && typeof doc.observationId === "string" && typeof doc.observatoryId === "string")
      result.fileLinks.push({ index, observationId: doc.observationId, observatoryId: doc.observatoryId });
    if (batch.collection === "files" && (doc.frame as { status?: unknown } | null | undefined)?.status === "queued") result.frames.queuedFrames.push(index);
    if (referencesOf)
      for (const [field, target, reference] of referencesOf(doc))
        if (typeof reference === "string") result.references.push({ index, field, target, id: reference });
  }
  return result;
}

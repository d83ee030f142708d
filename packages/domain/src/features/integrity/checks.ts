import type { IntegrityIssueDoc, ObservationDoc, ObservationHistoryDoc } from "@meridian/db";
import { canMove, isMonitoringMove } from "@meridian/rules";
import type { z } from "zod";
import type { ServerSettings } from "../system";
import { fastAcceptFor } from "./fast-accept";

/** What a check reports of one document; the scan adds its id and the scan's. */
export type Finding = Omit<IntegrityIssueDoc, "scanId" | "documentId" | "status" | "documentUpdatedAt" | "collection">;

/**
 * Structure: the document against its collection's zod schema, the same one every write goes
 * through. A missing field and a wrong type are told apart, each with its path.
 */
export function structureFindings({ schema, doc }: { schema: z.ZodType; doc: unknown }): Finding[] {
  if (fastAcceptFor(schema)?.(doc)) return [];
  const result = schema.safeParse(doc);
  if (result.success) return [];
  return result.error.issues.map((issue) => {
    const path = issue.path.join(".") || "(document)";
    const missing = issue.code === "invalid_type" && valueAt(doc, issue.path) === undefined;
    return {
      severity: missing ? "critical" : "warning",
      type: "structure",
      code: missing ? "MISSING_FIELD" : "INVALID_FIELD",
      message: `${path}: ${issue.message}`,
      autoFixable: false,
      fix: null,
    };
  });
}

function valueAt(doc: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value = doc;
  for (const key of path) value = value && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** Status: stuck in assigned or in_progress past the thresholds (admin settings), and moves the transition table forbids. */
export function observationStatusFindings(options: { doc: ObservationDoc; history: ObservationHistoryDoc[]; settings: ServerSettings; now: Date }): Finding[] {
  const { doc, history, settings, now } = options;
  const findings: Finding[] = [];
  // Only these two can be stuck; the date is parsed for them alone (a full scan reads a million).
  const hours = doc.status === "in_progress" || doc.status === "assigned" ? (now.getTime() - new Date(doc.statusChangedAt).getTime()) / 3_600_000 : 0;
  if (doc.status === "in_progress" && hours > settings.staleInProgressHours)
    findings.push({
      severity: "warning",
      type: "status",
      code: "STUCK_IN_PROGRESS",
      message: `In progress for ${Math.floor(hours)} hours (more than ${settings.staleInProgressHours})`,
      autoFixable: true,
      fix: {
        description: "Move it to failed, with the reason",
        changes: [{ field: "status", from: "in_progress", to: "failed", reason: "stuck in progress" }],
      },
    });
  if (doc.status === "assigned" && hours > settings.staleAssignedHours)
    findings.push({
      severity: "warning",
      type: "status",
      code: "STUCK_ASSIGNED",
      message: `Assigned for ${Math.floor(hours)} hours (more than ${settings.staleAssignedHours})`,
      autoFixable: true,
      fix: {
        description: "Return it to pending, so dispatch sends it again",
        changes: [{ field: "status", from: "assigned", to: "pending", reason: "stuck assigned" }],
      },
    });
  for (const entry of history) {
    // A first entry, or a note that is no move (a repeat made of its missing exposures: from and to are the status it keeps).
    if (entry.from === null || entry.from === entry.to) continue;
    if (!canMove(entry.from, entry.to) && !(doc.isMonitoring && isMonitoringMove(entry.from, entry.to)))
      findings.push({
        severity: "warning",
        type: "status",
        code: "INVALID_TRANSITION",
        message: `History records ${entry.from} → ${entry.to} at ${entry.at}, which the transition table forbids`,
        autoFixable: false,
        fix: null,
      });
  }
  return findings;
}

/** Data quality of an observation: test data (when asked for) and the deprecated captured_files. */
export function observationQualityFindings({ id, doc, includeTestData }: { id: string; doc: ObservationDoc; includeTestData: boolean }): Finding[] {
  const findings: Finding[] = [];
  if (includeTestData && (id.startsWith("test-") || /test/i.test(doc.name)))
    findings.push({ severity: "info", type: "data_quality", code: "TEST_DATA", message: `Test observation "${doc.name}"`, autoFixable: false, fix: null });
  if (doc.captured_files !== undefined)
    findings.push({
      severity: "info",
      type: "data_quality",
      code: "DEPRECATED_CAPTURED_FILES",
      message: `Uses the deprecated captured_files (${doc.captured_files.length} names)`,
      autoFixable: true,
      fix: {
        description: "Turn each name whose object is in storage into a file record and drop the field (names without an object are kept in the audit log)",
        changes: [...doc.captured_files.map((name) => ({ create: "files", filename: name })), { field: "captured_files", from: doc.captured_files, to: null }],
      },
    });
  return findings;
}

/** A reference to a document that does not exist. */
export const missingReference = ({ field, collection, id }: { field: string; collection: string; id: string }): Finding => ({
  severity: "critical",
  type: "reference",
  code: "MISSING_REFERENCE",
  message: `${field} names ${collection} ${id}, which does not exist`,
  autoFixable: false,
  fix: null,
});

/**
 * Structure beyond the schema: the same target twice, or one target name at two positions (more
 * than an arcminute apart), which a scheduler would point at inconsistently.
 */
export function targetFindings(doc: ObservationDoc): Finding[] {
  const findings: Finding[] = [];
  const seen = new Map<string, { ra: number; dec: number; exposures: string }>();
  for (const target of doc.targets) {
    const key = target.name.trim().toLowerCase();
    const earlier = seen.get(key);
    const exposures = JSON.stringify(target.exposures);
    if (!earlier) {
      seen.set(key, { ra: target.ra, dec: target.dec, exposures });
      continue;
    }
    const apart = Math.max(Math.abs(earlier.ra - target.ra), Math.abs(earlier.dec - target.dec));
    if (apart > 1 / 60)
      findings.push({
        severity: "warning",
        type: "structure",
        code: "INCONSISTENT_TARGET",
        message: `Target "${target.name}" appears at two positions: RA ${earlier.ra}, Dec ${earlier.dec} and RA ${target.ra}, Dec ${target.dec}`,
        autoFixable: false,
        fix: null,
      });
    else if (earlier.exposures === exposures)
      findings.push({
        severity: "info",
        type: "structure",
        code: "DUPLICATE_TARGET",
        message: `Target "${target.name}" is listed twice with the same exposures`,
        autoFixable: false,
        fix: null,
      });
  }
  return findings;
}

/** Data quality across documents: a file uploaded by another observatory than the one its observation ran on. */
export const fileObservatoryMismatch = ({
  fileObservatoryId,
  observationObservatoryId,
}: {
  fileObservatoryId: string;
  observationObservatoryId: string;
}): Finding => ({
  severity: "warning",
  type: "data_quality",
  code: "FILE_OBSERVATORY_MISMATCH",
  message: `Uploaded by observatory ${fileObservatoryId}, but its observation runs on ${observationObservatoryId}`,
  autoFixable: false,
  fix: null,
});

import { filesCollection, type Executor, type FileDoc, type ObservationDoc } from "@meridian/db";

export const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

/**
 * An observation stuck in `status` for `hours`, already reported by the stale monitor. Otherwise
 * the monitor's minute sweep flags it (and moves its updated_at) at any moment of a test, and a
 * repair then refuses it as changed since the scan.
 */
export const stuckFor = (status: "assigned" | "in_progress", hours: number) => ({
  status,
  statusChangedAt: hoursAgo(hours),
  staleReportedAt: hoursAgo(hours - 1),
});

/** A valid stored observation, for tests that write documents as an import or an old version would. */
export const observationDocument = (
  owner: { projectId: string; observatoryId: string | null; ownerId: string },
  fields: Partial<ObservationDoc> = {},
): ObservationDoc => ({
  name: "Clean",
  ...owner,
  type: "flexible",
  priority: 5,
  targets: [{ name: "Rigel", ra: 78.63, dec: -8.2, epoch: "J2000", exposures: [{ filter: "B", exposureSeconds: 10, count: 1, binning: 1 }] }],
  constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
  fixedTimeStart: null,
  fixedTimeEnd: null,
  bypassDarkness: false,
  notifications: { email: false, push: false, states: [] },
  status: "pending",
  statusReason: null,
  statusChangedAt: hoursAgo(1),
  isMonitoring: false,
  staleReportedAt: null,
  ...fields,
});

/** A file record of an observation, its object under the observation's prefix. */
export const fileDocument = (observationId: string, observatoryId: string, name: string, fields: Partial<FileDoc> = {}): FileDoc => ({
  observationId,
  observatoryId,
  filename: name,
  sizeBytes: 5,
  sha256: "0".repeat(64),
  contentType: "application/octet-stream",
  kind: "other",
  previewOfId: null,
  objectKey: `observations/${observationId}/${name}`,
  ...fields,
});

/**
 * Two records of one object, named as an integrity scan will: it reads records in (object key, id)
 * order and calls the second the duplicate, and two ids made in one millisecond fall in either order.
 */
export async function duplicateFileRecords(db: Executor, doc: FileDoc) {
  const [first, duplicate] = [await filesCollection.insert(db, doc), await filesCollection.insert(db, doc)].sort((one, other) => (one.id < other.id ? -1 : 1));
  return { first: first!, duplicate: duplicate! };
}

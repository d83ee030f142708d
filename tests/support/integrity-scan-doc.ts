import type { IntegrityScanDoc } from "@meridian/db";

/**
 * A scan's document as a test inserts it (queued, nothing scanned, started now by nobody), with the
 * fields the test is about given: `kind` and `options` always.
 */
export const scanDoc = (fields: Pick<IntegrityScanDoc, "kind" | "options"> & Partial<IntegrityScanDoc>): IntegrityScanDoc => ({
  status: "queued",
  progress: { collection: null, scanned: 0, total: null },
  summary: { critical: 0, warning: 0, info: 0 },
  checkpoint: null,
  jobId: null,
  startedBy: null,
  startedAt: new Date().toISOString(),
  finishedAt: null,
  error: null,
  ...fields,
});

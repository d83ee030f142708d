import { StorageCallUnsupported, tables, type ExternalStorageDoc } from "@meridian/db";
import { and, asc, gt, sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { openExternalStorageSecrets } from "../organizations";
import { STALE_UPLOAD_AGE_MS } from "../../platform/storage/stale-uploads";
import { DeliveryFailure } from "./http";
import { targetFor } from "./targets";

const ORGANIZATIONS_PER_PAGE = 100;

/** What the clean-up did at one destination: how many uploads it aborted, or why it could not look. */
export interface DestinationSweep {
  organizationId: string;
  destinationId: string;
  aborted: number;
  /** The call the destination lacks (501 NotImplemented), when it cannot list its uploads. */
  unsupported?: string;
  /** Why it could not be reached or read, in words without its secrets. */
  error?: string;
}

/** Every organization's destinations of the kinds whose uploads can linger (S3), a page of organizations at a time. */
async function* s3Destinations(deps: Deps): AsyncGenerator<{ organizationId: string; destination: ExternalStorageDoc }> {
  const { organizations } = tables;
  let after = "";
  for (;;) {
    const page = await deps.db
      .select({ id: organizations.id, doc: organizations.doc })
      .from(organizations)
      .where(and(gt(organizations.id, after), sql`${organizations.doc} -> 'externalStorage' @> '[{"kind": "s3"}]'::jsonb`))
      .orderBy(asc(organizations.id))
      .limit(ORGANIZATIONS_PER_PAGE);
    for (const row of page) for (const destination of row.doc.externalStorage) if (destination.kind === "s3") yield { organizationId: row.id, destination };
    if (page.length < ORGANIZATIONS_PER_PAGE) return;
    after = page.at(-1)!.id;
  }
}

/**
 * The destinations' part of the daily `abort_stale_uploads` job: at every S3 destination, with its
 * own credentials, aborts the multipart uploads under Meridian's keys begun more than `olderThanMs`
 * (a day) ago: what a killed delivery attempt left, or one whose abort found the destination down.
 * Each destination is visited on its own: one that is down or lacks ListMultipartUploads is logged
 * and the others are still cleaned.
 */
export async function abortStaleDestinationUploads(options: { deps: Deps; olderThanMs?: number }): Promise<DestinationSweep[]> {
  const { deps } = options;
  const startedBefore = new Date(deps.now().getTime() - (options.olderThanMs ?? STALE_UPLOAD_AGE_MS));
  const sweeps: DestinationSweep[] = [];
  for await (const { organizationId, destination } of s3Destinations(deps)) {
    const sweep: DestinationSweep = { organizationId, destinationId: destination.id, aborted: 0 };
    sweeps.push(sweep);
    const where = { organizationId, destinationId: destination.id };
    try {
      const target = targetFor({ env: deps.env, destination, secrets: openExternalStorageSecrets({ deps, destination }) });
      sweep.aborted = (await target.abortLeftUploads?.({ startedBefore })) ?? 0;
      deps.logger.info({ ...where, aborted: sweep.aborted }, "aborted the multipart uploads delivery attempts left at a storage destination");
    } catch (error) {
      if (error instanceof StorageCallUnsupported) {
        sweep.unsupported = error.call;
        deps.logger.info({ ...where, call: error.call }, `${error.message}: uploads left at this storage destination cannot be found`);
      } else {
        sweep.error = error instanceof DeliveryFailure ? error.message : `Unexpected error: ${(error as Error).message}`.slice(0, 500);
        deps.logger.warn({ ...where, reason: sweep.error }, "could not clean the uploads left at a storage destination; the others go on");
      }
    }
  }
  return sweeps;
}

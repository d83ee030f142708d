import os from "node:os";
import type { Deps } from "../../platform/deps";
import { inTransaction } from "../../platform/transaction";
import { notifySystemEvent } from "../notifications";
import { findServerAdmins } from "../users";
import { starCatalogPresent } from "./plate-solve";

/** The processes (their deps) that told server admins of a missing star catalog since they started. */
const toldOfMissingCatalog = new WeakMap<Deps, Promise<void>>();

/**
 * The spec's error when the plate-solving star catalog is missing, told to server admins once per
 * process start: by the start itself (`checkStarCatalog`), or by the first frame analysed without
 * a catalog in a process that did not check at its start (a worker of its own).
 */
export function tellStarCatalogMissingOnce(options: { deps: Deps }): Promise<void> {
  const { deps } = options;
  const told = toldOfMissingCatalog.get(deps);
  if (told) return told;
  const dir = deps.env.STAR_CATALOG_DIR;
  deps.logger.error({ starCatalogDir: dir }, "the plate-solving star catalog is missing or empty");
  const telling = (async () => {
    const admins = await findServerAdmins(deps.db);
    await inTransaction(deps, (t) =>
      notifySystemEvent({
        t,
        users: admins,
        event: {
          kind: "star_catalog_missing",
          subject: "Meridian: the plate-solving star catalog is missing",
          lines: [
            `The star catalog directory ${dir} (STAR_CATALOG_DIR) is missing or empty on ${os.hostname()}. Plate solving cannot work until it is restored: ` +
              "frames are measured and graded without a solution until then. On Debian: apt-get install astrometry.net astrometry-data-tycho2-10-19.",
          ],
          path: "/admin",
          priority: 1,
        },
      }),
    );
  })();
  // Told or not (the database was out of reach), once: a failure is logged, not retried per frame.
  toldOfMissingCatalog.set(
    deps,
    telling.catch((error: unknown) => deps.logger.warn({ err: error }, "could not tell server admins that the star catalog is missing")),
  );
  return telling;
}

/** Checked at every start: a missing or empty STAR_CATALOG_DIR is told to server admins (`tellStarCatalogMissingOnce`). */
export async function checkStarCatalog(options: { deps: Deps }): Promise<boolean> {
  const { deps } = options;
  if (await starCatalogPresent(deps.env.STAR_CATALOG_DIR)) return true;
  await tellStarCatalogMissingOnce({ deps });
  return false;
}

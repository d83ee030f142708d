import { filesCollection, type FileDoc, type StoredDocument } from "@meridian/db";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { loadObservationAccess, presentFile } from "../observations";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { queuedFrame, queueFrameAnalysis } from "./analyse-frame";

/**
 * The observation's owner or `can_operate` has a frame analysed again (after a star catalog was
 * installed, say): the frame goes back to `queued` under a fresh analysis id, and its job replaces
 * a waiting one of the same frame (key `frame:<fileId>`). A job of the earlier request that is
 * running already writes nothing: the frame no longer waits for its id.
 */
export async function analyseFileAgain(options: { deps: Deps; actor: UserActor; fileId: string }) {
  const { deps, actor, fileId } = options;
  return inTransaction(deps, async (t) => {
    const file = await filesCollection.get(t.tx, fileId, { forUpdate: true });
    if (!file) throw new AppError("NOT_FOUND", "No such file");
    const access = await loadObservationAccess({ db: t.tx, actor, observationId: file.doc.observationId }).catch((error: unknown) => {
      throw error instanceof AppError && error.code === "NOT_FOUND" ? new AppError("NOT_FOUND", "No such file") : error;
    });
    if (!access.isOwner && !access.canOperate)
      throw new AppError("FORBIDDEN", "Only the observation's owner or an operator of its observatory may have a frame analysed again");
    if (!file.doc.frame) throw new AppError("NOT_A_FRAME", `${file.doc.filename} is not a frame (a FITS image): there is nothing to analyse`);
    return presentFile(await queueAnalysisAgain({ t, file }));
  });
}

/**
 * A frame, read and locked by the caller, back to `queued` under a fresh analysis id, with its
 * job replacing a waiting one of the same frame: what `POST /files/{id}/analyse` and the integrity
 * repair of a frame left queued both do, in the caller's transaction.
 */
export async function queueAnalysisAgain(options: { t: Pick<InTransaction, "tx">; file: StoredDocument<FileDoc> }) {
  const { t, file } = options;
  const frame = queuedFrame();
  const updated = await filesCollection.update(t.tx, file.id, (doc) => ({ ...doc, frame }), { seen: file });
  await queueFrameAnalysis({ t, fileId: file.id, analysisId: frame.analysisId });
  return updated!;
}

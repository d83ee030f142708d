import { filesCollection } from "@meridian/db";
import type { Deps } from "../../platform/deps";
import { inTransaction } from "../../platform/transaction";

/**
 * A frame whose every analysis attempt ended without finishing (its workers killed mid-analysis)
 * ends `failed` with the reason, as a frame that cannot be read does, instead of staying `queued`
 * for ever; `POST /files/{id}/analyse` tries again. Only the analysis asked for last is ended: a
 * newer request's job may still run.
 */
export async function giveUpFrameAnalysis(options: { deps: Deps; fileId: string; analysisId: string; reason: string }): Promise<void> {
  const { deps, fileId, analysisId, reason } = options;
  await inTransaction(deps, async (t) => {
    const file = await filesCollection.get(t.tx, fileId, { forUpdate: true });
    const frame = file?.doc.frame;
    if (!file || !frame || frame.status !== "queued" || frame.analysisId !== analysisId) return;
    const analysedAt = t.now().toISOString();
    await filesCollection.update(t.tx, fileId, (doc) => ({ ...doc, frame: { ...frame, status: "failed", failure: reason, analysedAt } }), { seen: file });
  });
}

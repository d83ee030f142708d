import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import { filesCollection, tables, type Executor, type FileDoc, type StoredDocument } from "@meridian/db";
import { and, count, eq, sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { pendingDelivery, queueDelivery } from "../delivery";
import { MAX_OBSERVATION_FILES } from "../observations";
import type { InTransaction } from "../../platform/transaction";
import type { FitsImage } from "./fits-header";
import { renderFramePreview } from "./make-preview";

const { files } = tables;

/** Whether some file is the frame's preview: uploaded with `previewOf` it, or made by an earlier analysis. */
async function hasPreview(db: Executor, frame: StoredDocument<FileDoc>): Promise<boolean> {
  const [found] = await db
    .select({ id: files.id })
    .from(files)
    .where(and(eq(files.observationId, frame.doc.observationId), sql`${files.doc}->>'previewOfId' = ${frame.id}`))
    .limit(1);
  return found !== undefined;
}

/** A made preview's name: the frame's, its FITS extension replaced, within the 255 characters a name may have. */
const previewName = (filename: string) => `${filename.replace(/\.(fits?|fts)$/i, "").slice(0, 240)}.preview.png`;

export interface FramePreview {
  /** Renders the PNG from the frame's file in the work folder, once its image is known to be readable (not when the frame has a preview). */
  render(options: { framePath: string; image: FitsImage }): Promise<void>;
  /** Puts the rendered PNG into object storage, before the transaction that records it, as uploads do. */
  store(): Promise<void>;
  /** In the transaction that writes the analysis' result: the preview's record, unless the frame got a preview meanwhile or the observation is full. */
  record(t: InTransaction): Promise<void>;
  /** After that transaction, however it ended: an object whose record was not committed is removed. */
  settle(): Promise<void>;
}

/**
 * The preview an analysis makes for a frame that has none (contract, "Previews"): a file of
 * `kind: "preview"` with `previewOfId` the frame, in the observation's folder of object storage
 * like an upload, delivered to the observation's storage destination like one. Its record is
 * written with the analysis' result, and only with it: a run whose result is not written (a
 * killed worker's job run again, a request replaced) leaves no preview, and one that is written
 * finds none made before it. A preview that cannot be made or stored costs the frame its
 * preview, never its analysis.
 */
export async function framePreview(options: { deps: Deps; frame: StoredDocument<FileDoc> }): Promise<FramePreview> {
  const { deps, frame } = options;
  const wanted = !(await hasPreview(deps.db, frame));
  let png: Buffer | null = null;
  let stored: { fileId: string; objectKey: string } | null = null;
  return {
    async render({ framePath, image }) {
      if (!wanted) return;
      const handle = await fs.open(framePath);
      try {
        png = await renderFramePreview({ handle, image });
      } catch (error) {
        deps.logger.warn({ err: error, fileId: frame.id }, "could not render a frame's preview");
      } finally {
        await handle.close();
      }
    },
    async store() {
      if (!png) return;
      const fileId = filesCollection.newId();
      const objectKey = `observations/${frame.doc.observationId}/${fileId}`;
      try {
        await deps.storage.put(objectKey, png, { contentType: "image/png" });
        stored = { fileId, objectKey };
      } catch (error) {
        deps.logger.warn({ err: error, fileId: frame.id }, "could not store a frame's preview");
        await deps.storage.delete(objectKey).catch(() => undefined);
      }
    },
    async record(t) {
      if (!png || !stored || (await hasPreview(t.tx, frame))) return;
      const [held] = await t.tx.select({ count: count() }).from(files).where(eq(files.observationId, frame.doc.observationId));
      if ((held?.count ?? 0) >= MAX_OBSERVATION_FILES) return;
      const [observation] = await t.tx.execute<{ destination: string | null }>(
        sql`select doc->>'storageDestinationId' as destination from observations where id = ${frame.doc.observationId}`,
      );
      const destinationId = observation?.destination ?? null;
      await filesCollection.insert(
        t.tx,
        {
          observationId: frame.doc.observationId,
          observatoryId: frame.doc.observatoryId,
          filename: previewName(frame.doc.filename),
          sizeBytes: png.length,
          sha256: createHash("sha256").update(png).digest("hex"),
          contentType: "image/png",
          kind: "preview",
          previewOfId: frame.id,
          objectKey: stored.objectKey,
          ...(destinationId ? { deliveries: [pendingDelivery(destinationId)] } : {}),
          frame: null,
        },
        stored.fileId,
      );
      if (destinationId) await queueDelivery({ t, fileId: stored.fileId, destinationId });
    },
    async settle() {
      if (!stored) return;
      const { fileId, objectKey } = stored;
      if (await filesCollection.get(deps.db, fileId).catch(() => "unknown")) return;
      await deps.storage.delete(objectKey).catch((error: unknown) => deps.logger.warn({ err: error, objectKey }, "could not remove an unrecorded preview"));
    },
  };
}

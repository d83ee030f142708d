import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { Readable, Transform } from "node:stream";
import { createGunzip, createGzip } from "node:zlib";
import { SERVER_VERSION } from "@meridian/config";
import { backupManifestSchema, collections, schemaVersion, type BackupManifest } from "@meridian/db";
import type { Deps } from "../deps";
import { ARCHIVE_END, readArchive, SECTION_END, SectionDigest, sectionHeader, type SectionHeader } from "./archive-format";

/** Collections an archive holds: every one but the backup records themselves (a restore never rolls those back). */
export const ARCHIVED_COLLECTIONS = Object.keys(collections).filter((name) => name !== "backups");

export const manifestKeyOf = (archiveKey: string) => archiveKey.replace(/[^/]+$/, "manifest.json");

/** Counts and hashes bytes as they pass, for the archive's size and SHA-256. */
function tap(onChunk: (chunk: Buffer) => void) {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onChunk(chunk);
      done(null, chunk);
    },
  });
}

/** Rows and decompressed bytes travel in chunks of about this size (COPY alone hands over one row per chunk). */
const BATCH_BYTES = 256 * 1024;

/**
 * COPY hands over one row per chunk; hashing, counting and piping a million small chunks one by
 * one costs more than the rows' bytes, so they travel on in batches of about BATCH_BYTES.
 */
async function* batched(rows: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const row of rows) {
    pending.push(row);
    pendingBytes += row.length;
    if (pendingBytes < BATCH_BYTES) continue;
    yield Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}

/**
 * Streams every archived collection, as of one repeatable-read snapshot, through COPY and gzip
 * into a multipart upload: memory stays at a few upload parts whatever the database's size.
 * Returns the manifest of what was written.
 */
export async function writeArchive(deps: Deps, objectKey: string, onRows: (rows: number) => Promise<void>): Promise<BackupManifest> {
  const parts: BackupManifest["collections"] = [];
  const archiveHash = createHash("sha256");
  let sizeBytes = 0;
  let snapshotAt = "";
  let rowsDone = 0;
  let lastReport = 0;
  await deps.sql.begin("isolation level repeatable read read only", async (tx) => {
    // The first statement takes the snapshot every COPY below reads.
    const [clock] = await tx<Array<{ now: Date | string }>>`select now() as now`;
    snapshotAt = new Date(clock!.now).toISOString();
    const columnRows = await tx<Array<{ table_name: string; columns: string[] }>>`
      select table_name::text, array_agg(column_name::text order by ordinal_position) as columns
      from information_schema.columns where table_schema = current_schema() and table_name in ${tx(ARCHIVED_COLLECTIONS)}
      group by table_name`;
    const columnsOf = new Map(columnRows.map((row) => [row.table_name, row.columns]));
    async function* chunks() {
      for (const name of ARCHIVED_COLLECTIONS) {
        const columns = columnsOf.get(name);
        if (!columns) throw new Error(`the table ${name} is missing`);
        yield sectionHeader({ collection: name, columns });
        const digest = new SectionDigest();
        const rows = await tx`copy ${tx(name)} (${tx(columns)}) to stdout`.readable();
        for await (const batch of batched(rows as AsyncIterable<Buffer>)) {
          const before = digest.rows;
          digest.add(batch);
          rowsDone += digest.rows - before;
          if (Date.now() - lastReport > 1000) {
            lastReport = Date.now();
            await onRows(rowsDone);
          }
          yield batch;
        }
        yield SECTION_END;
        parts.push({ name, columns, ...digest.digest() });
      }
      yield ARCHIVE_END;
    }
    const source = Readable.from(chunks());
    const gzip = createGzip();
    const counted = tap((chunk) => {
      archiveHash.update(chunk);
      sizeBytes += chunk.length;
    });
    source.on("error", (error) => counted.destroy(error));
    gzip.on("error", (error) => counted.destroy(error));
    await deps.storage.put(objectKey, source.pipe(gzip).pipe(counted), { contentType: "application/gzip" });
  });
  await onRows(rowsDone);
  return {
    format: "meridian-backup/1",
    schemaVersion: schemaVersion(),
    serverVersion: SERVER_VERSION,
    snapshotAt,
    compression: "gzip",
    collections: parts,
    archive: { key: objectKey, sizeBytes, sha256: archiveHash.digest("hex") },
  };
}

/** Where a reader of the archive puts one collection's rows (a restore's COPY into its side table). */
export interface SectionSink {
  write(chunk: Buffer): Promise<void>;
  end(): Promise<void>;
  /** Gives up on a half-written section (a COPY is cancelled, so its connection is usable again). */
  abort(): void;
}

/**
 * Reads an archive back from storage and checks it against its manifest: the stored manifest
 * equals the recorded one, the archive's size and SHA-256, and each collection's rows, bytes and
 * SHA-256 in order. `onSection` may take each collection's rows as they stream (a restore loads
 * them while checking). Returns what does not match; empty means verified.
 */
export async function readArchiveBack(
  deps: Deps,
  manifest: BackupManifest,
  options: { onSection?: (header: SectionHeader) => Promise<SectionSink | undefined>; onBytes?: (bytes: number) => Promise<void> } = {},
): Promise<string[]> {
  const problems: string[] = [];
  const storedManifest = await deps.storage.get(manifestKeyOf(manifest.archive.key));
  if (!storedManifest) problems.push("the stored manifest is missing");
  else {
    const text = Buffer.concat(await storedManifest.body.toArray()).toString("utf8");
    const parsed = backupManifestSchema.safeParse(safeJson(text));
    if (!parsed.success || !isDeepStrictEqual(parsed.data, manifest)) problems.push("the stored manifest differs from the recorded one");
  }
  const archive = await deps.storage.get(manifest.archive.key);
  if (!archive) return [...problems, "the archive is missing"];

  const archiveHash = createHash("sha256");
  let sizeBytes = 0;
  let lastReport = 0;
  const counted = tap((chunk) => {
    archiveHash.update(chunk);
    sizeBytes += chunk.length;
  });
  const gunzip = createGunzip({ chunkSize: BATCH_BYTES });
  archive.body.on("error", (error) => gunzip.destroy(error));
  counted.on("error", (error) => gunzip.destroy(error));
  archive.body.pipe(counted).pipe(gunzip);

  const expected = [...manifest.collections];
  let sink: SectionSink | undefined;
  try {
    let digest: SectionDigest | undefined;
    let header: SectionHeader | undefined;
    for await (const event of readArchive(gunzip)) {
      if (event.type === "section") {
        header = event.header;
        digest = new SectionDigest();
        sink = await options.onSection?.(header);
      } else if (event.type === "rows") {
        digest!.add(event.chunk);
        if (sink) await sink.write(event.chunk);
        if (options.onBytes && Date.now() - lastReport > 1000) {
          lastReport = Date.now();
          await options.onBytes(sizeBytes);
        }
      } else {
        if (sink) await sink.end();
        const want = expected.shift();
        const got = digest!.digest();
        if (!want || want.name !== header!.collection)
          problems.push(`the archive holds ${header!.collection} where the manifest expects ${want?.name ?? "nothing"}`);
        else if (!isDeepStrictEqual(want.columns, header!.columns)) problems.push(`${want.name}: its columns differ from the manifest's`);
        else if (want.rows !== got.rows || want.bytes !== got.bytes || want.sha256 !== got.sha256)
          problems.push(
            `${want.name}: ${got.rows} rows, ${got.bytes} bytes, SHA-256 ${got.sha256.slice(0, 12)}… ` +
              `where the manifest says ${want.rows}, ${want.bytes}, ${want.sha256.slice(0, 12)}…`,
          );
        sink = undefined;
      }
    }
  } catch (error) {
    sink?.abort();
    archive.body.destroy();
    problems.push(`the archive cannot be read: ${(error as Error).message}`);
    return problems;
  }
  for (const missing of expected) problems.push(`${missing.name} is missing from the archive`);
  if (sizeBytes !== manifest.archive.sizeBytes) problems.push(`the archive is ${sizeBytes} bytes where the manifest says ${manifest.archive.sizeBytes}`);
  else if (archiveHash.digest("hex") !== manifest.archive.sha256) problems.push("the archive's SHA-256 differs from the manifest's");
  await options.onBytes?.(sizeBytes);
  return problems;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { PassThrough, Transform, type Writable } from "node:stream";
import { createBrotliDecompress, createGunzip } from "node:zlib";
import type postgres from "postgres";
import { SERVER_VERSION } from "@meridian/config";
import { backupManifestSchema, collections, schemaVersion, type BackupManifest } from "@meridian/db";
import type { Deps } from "../deps";
import { startTypeScriptThread } from "../threads/start-thread";
import { BATCH_BYTES, readArchive, SectionDigest, type SectionHeader } from "./archive-format";
import type { ArchiveParentMessage, ArchiveThreadData, ArchiveThreadMessage, SectionDone, ThreadConnection } from "./archive-thread-protocol";

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

/** The archive thread's connection: the same server, database and role as this process's. */
function threadConnection(sql: postgres.Sql): ThreadConnection {
  const { host, port, path, database, user, pass, ssl, connection } = sql.options;
  if (typeof pass === "function") throw new Error("the archive thread needs the database password as text");
  return {
    host: host.map((name, index) => `${name}:${port[index]}`).join(","),
    path: path || undefined,
    database,
    user,
    pass: pass ?? undefined,
    ssl,
    connection: connection as ThreadConnection["connection"],
  };
}

/**
 * Runs the archive thread (`archive-thread.ts`) and writes what it sends into `sink`, taking a
 * chunk only as `sink` takes it. Resolves with each collection's rows, bytes and SHA-256.
 */
function runArchiveThread(data: ArchiveThreadData, sink: Writable, onRows: (rows: number) => void): Promise<SectionDone[]> {
  const thread = startTypeScriptThread({ entry: new URL("./archive-thread.ts", import.meta.url), data });
  const sections: SectionDone[] = [];
  const credit = () => thread.postMessage({ type: "credit" } satisfies ArchiveParentMessage);
  return new Promise<SectionDone[]>((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      sink.off("error", settle);
      void thread.terminate();
      if (error) reject(error);
      else resolve(sections);
    };
    sink.once("error", settle);
    thread.on("error", settle);
    thread.on("exit", (code) => settle(new Error(`the archive thread stopped (exit code ${code})`)));
    thread.on("message", (message: ArchiveThreadMessage) => {
      if (message.type === "chunk") {
        const chunk = Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength);
        if (sink.write(chunk)) credit();
        else sink.once("drain", credit);
      } else if (message.type === "rows") onRows(message.rows);
      else if (message.type === "section") sections.push(message.section);
      else if (message.type === "done") settle();
      else settle(new Error(message.message));
    });
  });
}

/**
 * Streams every archived collection, as of one repeatable-read snapshot, through COPY and brotli
 * into a multipart upload: memory stays at a few upload parts whatever the database's size. The
 * COPYs run in a thread on the snapshot this transaction exports. Returns the manifest of what was written.
 */
export async function writeArchive(options: { deps: Deps; objectKey: string; onRows: (rows: number) => Promise<void> }): Promise<BackupManifest> {
  const { deps, objectKey, onRows } = options;
  const archiveHash = createHash("sha256");
  let sizeBytes = 0;
  let snapshotAt = "";
  let sections: SectionDone[] = [];
  // Progress reports go out one at a time, and a late one never overtakes the last.
  let reporting = Promise.resolve();
  const report = (rows: number) => {
    reporting = reporting.then(() => onRows(rows)).catch(() => undefined);
  };
  const archive = new PassThrough();
  const counted = tap((chunk) => {
    archiveHash.update(chunk);
    sizeBytes += chunk.length;
  });
  archive.on("error", (error) => counted.destroy(error));
  const uploaded = deps.storage.put(objectKey, archive.pipe(counted), { contentType: "application/x-brotli" });
  // A failed upload stops the archive thread, which would otherwise wait for credits for ever.
  uploaded.catch((error: Error) => archive.destroy(error));
  // Not inTransaction: a read-only repeatable-read transaction on postgres.js itself, whose snapshot another connection
  // imports and whose COPY streams drizzle does not offer (listed as an exception in eslint.config.js).
  const written = deps.sql.begin("isolation level repeatable read read only", async (tx) => {
    // The first statement takes the snapshot the thread reads; it is exported for the thread's connection.
    const [clock] = await tx<Array<{ now: Date | string; snapshot: string }>>`select now() as now, pg_export_snapshot() as snapshot`;
    snapshotAt = new Date(clock!.now).toISOString();
    // A generated column (observations.search_text) is made again by the restore's COPY, which refuses one given.
    const columnRows = await tx<Array<{ table_name: string; columns: string[] }>>`
      select table_name::text, array_agg(column_name::text order by ordinal_position) as columns
      from information_schema.columns where table_schema = current_schema() and table_name in ${tx(ARCHIVED_COLLECTIONS)}
        and is_generated = 'NEVER'
      group by table_name`;
    const columnsOf = new Map(columnRows.map((row) => [row.table_name, row.columns]));
    const headers = ARCHIVED_COLLECTIONS.map((collection) => {
      const columns = columnsOf.get(collection);
      if (!columns) throw new Error(`the table ${collection} is missing`);
      return { collection, columns };
    });
    // The exporting transaction stays open until the thread is done; its snapshot lives as long.
    sections = await runArchiveThread({ connection: threadConnection(deps.sql), snapshot: clock!.snapshot, sections: headers }, archive, report);
    archive.end();
  });
  written.catch((error: Error) => archive.destroy(error));
  // Both settle before anything is said: a failed archive's upload is aborted, not left behind.
  const [writing, uploading] = await Promise.allSettled([written, uploaded]);
  if (writing.status === "rejected") throw writing.reason;
  if (uploading.status === "rejected") throw uploading.reason;
  await reporting;
  await onRows(sections.reduce((sum, section) => sum + section.rows, 0));
  return {
    format: "meridian-backup/1",
    schemaVersion: schemaVersion(),
    serverVersion: SERVER_VERSION,
    snapshotAt,
    compression: "brotli",
    collections: sections.map(({ collection, columns, rows, bytes, sha256 }) => ({ name: collection, columns, rows, bytes, sha256 })),
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
export async function readArchiveBack(options: {
  deps: Deps;
  manifest: BackupManifest;
  onSection?: (header: SectionHeader) => Promise<SectionSink | undefined>;
  onBytes?: (bytes: number) => Promise<void>;
}): Promise<string[]> {
  const { deps, manifest } = options;
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
  const decompressor = manifest.compression === "gzip" ? createGunzip({ chunkSize: BATCH_BYTES }) : createBrotliDecompress({ chunkSize: BATCH_BYTES });
  archive.body.on("error", (error) => decompressor.destroy(error));
  counted.on("error", (error) => decompressor.destroy(error));
  archive.body.pipe(counted).pipe(decompressor);

  const expected = [...manifest.collections];
  let sink: SectionSink | undefined;
  try {
    let digest: SectionDigest | undefined;
    let header: SectionHeader | undefined;
    for await (const event of readArchive(decompressor)) {
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

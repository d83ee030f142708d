import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { Transform } from "node:stream";
import { createBrotliDecompress, createGunzip } from "node:zlib";
import { backupManifestSchema, collections, type BackupManifest } from "@meridian/db";
import type { Deps } from "../../platform/deps";
import { BATCH_BYTES, readArchive, SectionDigest, type SectionHeader } from "./archive-format";

/** Collections an archive holds: every one but the backup records themselves (a restore never rolls those back). */
export const ARCHIVED_COLLECTIONS = Object.keys(collections).filter((name) => name !== "backups");

/** Every object of a backup sits under `backups/<id>/`: a version 1 archive or a version 2 archive's parts, and the manifest. */
export const backupPrefixOf = (objectKey: string) => objectKey.replace(/[^/]+$/, "");
export const manifestKeyOf = (objectKey: string) => `${backupPrefixOf(objectKey)}manifest.json`;

/** The compressed size of everything a manifest lists. */
export const archiveSizeOf = (manifest: BackupManifest) => (manifest.format === "meridian-backup/1" ? manifest.archive.sizeBytes : manifest.sizeBytes);

/**
 * Deletes every object of a backup, whatever its format and however far it got: listed by
 * prefix, since a failed backup has no manifest to name its parts.
 */
export async function deleteBackupObjects({ deps, objectKey }: { deps: Deps; objectKey: string }) {
  // Listed whole before anything is deleted, so no page of the listing is asked for after its objects went.
  const keys: string[] = [];
  for await (const page of deps.storage.list(backupPrefixOf(objectKey))) keys.push(...page.map((object) => object.key));
  for (let start = 0; start < keys.length; start += 1000) await deps.storage.deleteMany(keys.slice(start, start + 1000));
}

/** Where a reader of the archive puts one collection's rows (a restore's COPY into its side table). */
export interface SectionSink {
  write(chunk: Buffer): Promise<void>;
  end(): Promise<void>;
  /** Gives up on a half-written section (a COPY is cancelled, so its connection is usable again). */
  abort(): void;
}

/** One object to read back: a version 1 archive, or a part of a version 2 one, with the sections it must hold in order. */
interface ObjectToRead {
  key: string;
  sizeBytes: number;
  sha256: string;
  compression: "brotli" | "gzip";
  sections: Array<{ name: string; columns: string[]; rows: number; bytes: number; sha256: string }>;
  /** How problems name it: "the archive", or the part's file name. */
  label: string;
}

type OnSection = (header: SectionHeader, lane: number) => Promise<SectionSink | undefined>;

/** Counts and hashes bytes as they pass, for an object's size and SHA-256. */
export function tap(onChunk: (chunk: Buffer) => void) {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onChunk(chunk);
      done(null, chunk);
    },
  });
}

/**
 * Reads one object back and checks it: its size and SHA-256, and each section's collection,
 * columns, rows, bytes and SHA-256 in order. Each section's rows go to the sink `onSection` gives
 * as they stream. Returns what does not match.
 */
async function readObjectBack(options: { deps: Deps; object: ObjectToRead; lane: number; onSection?: OnSection; onBytes: (bytes: number) => void }) {
  const { deps, object, lane } = options;
  const problems: string[] = [];
  const stored = await deps.storage.get(object.key);
  if (!stored) return [`${object.label} is missing`];
  const hash = createHash("sha256");
  let sizeBytes = 0;
  const counted = tap((chunk) => {
    hash.update(chunk);
    sizeBytes += chunk.length;
    options.onBytes(chunk.length);
  });
  const decompressor = object.compression === "gzip" ? createGunzip({ chunkSize: BATCH_BYTES }) : createBrotliDecompress({ chunkSize: BATCH_BYTES });
  stored.body.on("error", (error) => decompressor.destroy(error));
  counted.on("error", (error) => decompressor.destroy(error));
  stored.body.pipe(counted).pipe(decompressor);

  const expected = [...object.sections];
  let sink: SectionSink | undefined;
  try {
    let digest: SectionDigest | undefined;
    let header: SectionHeader | undefined;
    for await (const event of readArchive(decompressor)) {
      if (event.type === "section") {
        header = event.header;
        digest = new SectionDigest();
        sink = await options.onSection?.(header, lane);
      } else if (event.type === "rows") {
        digest!.add(event.chunk);
        if (sink) await sink.write(event.chunk);
      } else {
        if (sink) await sink.end();
        const want = expected.shift();
        const got = digest!.digest();
        if (!want || want.name !== header!.collection)
          problems.push(`${object.label} holds ${header!.collection} where the manifest expects ${want?.name ?? "nothing"}`);
        else if (!isDeepStrictEqual(want.columns, header!.columns)) problems.push(`${want.name}: its columns differ from the manifest's`);
        else if (want.rows !== got.rows || want.bytes !== got.bytes || want.sha256 !== got.sha256)
          problems.push(
            `${want.name}${object.label === "the archive" ? "" : ` in ${object.label}`}: ` +
              `${got.rows} rows, ${got.bytes} bytes, SHA-256 ${got.sha256.slice(0, 12)}… ` +
              `where the manifest says ${want.rows}, ${want.bytes}, ${want.sha256.slice(0, 12)}…`,
          );
        sink = undefined;
      }
    }
  } catch (error) {
    sink?.abort();
    stored.body.destroy();
    problems.push(`${object.label} cannot be read: ${(error as Error).message}`);
    return problems;
  }
  for (const missing of expected) problems.push(`${missing.name} is missing from ${object.label}`);
  if (sizeBytes !== object.sizeBytes) problems.push(`${object.label} is ${sizeBytes} bytes where the manifest says ${object.sizeBytes}`);
  else if (hash.digest("hex") !== object.sha256) problems.push(`${object.label}'s SHA-256 differs from the manifest's`);
  return problems;
}

/** What a manifest says must be read: one archive (version 1), or its parts (version 2). */
function objectsOf(manifest: BackupManifest): ObjectToRead[] {
  if (manifest.format === "meridian-backup/1")
    return [{ ...manifest.archive, compression: manifest.compression, sections: manifest.collections, label: "the archive" }];
  return manifest.parts.map((part) => ({ ...part, compression: manifest.compression, label: part.key.slice(part.key.lastIndexOf("/") + 1) }));
}

/** A version 2 manifest's totals must be its sections' sums: a manifest edited by hand is not taken on trust. */
function totalsProblems(manifest: BackupManifest): string[] {
  if (manifest.format === "meridian-backup/1") return [];
  const problems: string[] = [];
  const sections = manifest.parts.flatMap((part) => part.sections);
  for (const collection of manifest.collections) {
    const own = sections.filter((section) => section.name === collection.name);
    const rows = own.reduce((sum, section) => sum + section.rows, 0);
    const bytes = own.reduce((sum, section) => sum + section.bytes, 0);
    if (own.length !== collection.sections || rows !== collection.rows || bytes !== collection.bytes)
      problems.push(`${collection.name}: the manifest's totals differ from its parts' (${own.length} sections, ${rows} rows, ${bytes} bytes)`);
  }
  const named = new Set(manifest.collections.map((collection) => collection.name));
  for (const section of sections) if (!named.has(section.name)) problems.push(`a part holds ${section.name}, which the manifest's collections do not list`);
  if (manifest.parts.reduce((sum, part) => sum + part.sizeBytes, 0) !== manifest.sizeBytes) problems.push("the manifest's size differs from its parts'");
  return problems;
}

/**
 * Reads a backup back from storage and checks it against its manifest: the stored manifest
 * equals the recorded one, and every object (the archive of version 1, each part of version 2)
 * its size, SHA-256 and sections. Up to `lanes` parts are read at once; `onSection` may take each
 * section's rows as they stream, told the lane reading it (a restore loads them while checking,
 * on that lane's connection). Returns what does not match; empty means verified.
 */
export async function readArchiveBack(options: {
  deps: Deps;
  manifest: BackupManifest;
  lanes?: number;
  onSection?: OnSection;
  onBytes?: (bytes: number) => Promise<void>;
}): Promise<string[]> {
  const { deps, manifest } = options;
  const problems: string[] = totalsProblems(manifest);
  const storedManifest = await deps.storage.get(manifestKeyOf(manifest.format === "meridian-backup/1" ? manifest.archive.key : manifest.parts[0]!.key));
  if (!storedManifest) problems.push("the stored manifest is missing");
  else {
    const text = Buffer.concat(await storedManifest.body.toArray()).toString("utf8");
    const parsed = backupManifestSchema.safeParse(safeJson(text));
    if (!parsed.success || !isDeepStrictEqual(parsed.data, manifest)) problems.push("the stored manifest differs from the recorded one");
  }
  let readBytes = 0;
  let lastReport = 0;
  // Reports go out one at a time, at most a second apart, whichever lane's bytes crossed the second.
  let reporting = Promise.resolve();
  const onBytes = (bytes: number) => {
    readBytes += bytes;
    if (!options.onBytes || Date.now() - lastReport <= 1000) return;
    lastReport = Date.now();
    const done = readBytes;
    reporting = reporting.then(() => options.onBytes!(done)).catch(() => undefined);
  };
  const objects = objectsOf(manifest);
  let next = 0;
  const lanes = Math.max(1, Math.min(options.lanes ?? 1, objects.length));
  const found = await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      const own: string[] = [];
      for (let index = next++; index < objects.length; index = next++)
        own.push(...(await readObjectBack({ deps, object: objects[index]!, lane, onSection: options.onSection, onBytes })));
      return own;
    }),
  );
  await reporting;
  await options.onBytes?.(readBytes);
  return [...problems, ...found.flat()];
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

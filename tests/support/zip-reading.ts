import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import yauzl from "yauzl";

export interface ZipEntry {
  name: string;
  /** 0: stored, 8: deflated. */
  compressionMethod: number;
  size: number;
  sha256: string;
  bytes?: Buffer;
}

/**
 * Every entry of a ZIP (a buffer, or a file on disk), read with yauzl, which checks each entry's
 * CRC-32 and sizes as it reads; entries of at most `keepBytes` are kept whole.
 */
export async function readZip(source: Buffer | string, keepBytes = 1024 * 1024): Promise<ZipEntry[]> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    const done = (error: Error | null, file?: yauzl.ZipFile) => (error ? reject(error) : resolve(file!));
    if (typeof source === "string") yauzl.open(source, { lazyEntries: true, strictFileNames: true }, done);
    else yauzl.fromBuffer(source, { lazyEntries: true, strictFileNames: true }, done);
  });
  const entries: ZipEntry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on("error", reject);
    zip.on("end", () => resolve());
    zip.on("entry", (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const hash = createHash("sha256");
        const chunks: Buffer[] = [];
        (stream as Readable).on("data", (chunk: Buffer) => {
          hash.update(chunk);
          if (entry.uncompressedSize <= keepBytes) chunks.push(chunk);
        });
        stream.on("error", reject);
        stream.on("end", () => {
          entries.push({
            name: entry.fileName,
            compressionMethod: entry.compressionMethod,
            size: entry.uncompressedSize,
            sha256: hash.digest("hex"),
            ...(entry.uncompressedSize <= keepBytes ? { bytes: Buffer.concat(chunks) } : {}),
          });
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  zip.close();
  return entries;
}

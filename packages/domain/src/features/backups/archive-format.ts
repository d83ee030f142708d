import { createHash, type Hash } from "node:crypto";

/**
 * The archive inside a backup, before compression: for each collection a header line
 * `#meridian {"collection","columns"}`, the rows exactly as PostgreSQL's COPY text format writes
 * them, and COPY's own end marker `\.` on a line of its own; then `#end`. A row can never begin
 * with `\.` (COPY writes a backslash as `\\`), so the marker is unambiguous, and a truncated
 * archive is told by its missing `#end`.
 */
/** Rows are written, and decompressed bytes read back, in chunks of about this size: COPY alone hands over one row per chunk. */
export const BATCH_BYTES = 256 * 1024;

export const SECTION_END = Buffer.from("\\.\n");
export const ARCHIVE_END = Buffer.from("#end\n");
const HEADER_PREFIX = "#meridian ";

export interface SectionHeader {
  collection: string;
  columns: string[];
}

export const sectionHeader = (header: SectionHeader) => Buffer.from(`${HEADER_PREFIX}${JSON.stringify(header)}\n`);

/** Rows, bytes and SHA-256 of one collection's COPY text, as it streams by. */
export class SectionDigest {
  rows = 0;
  bytes = 0;
  private readonly hash: Hash = createHash("sha256");

  add(chunk: Buffer) {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) this.rows += 1;
  }

  digest() {
    return { rows: this.rows, bytes: this.bytes, sha256: this.hash.digest("hex") };
  }
}

export type ArchiveEvent = { type: "section"; header: SectionHeader } | { type: "rows"; chunk: Buffer } | { type: "section_end" };

class ArchiveFormatError extends Error {}

/**
 * Reads an (already decompressed) archive as events: a section's header, its COPY rows in chunks as
 * they arrive, its end. Memory stays at one chunk whatever the archive's size.
 */
export async function* readArchive(source: AsyncIterable<Buffer>): AsyncGenerator<ArchiveEvent> {
  let pending: Buffer = Buffer.alloc(0);
  let inSection = false;
  // Whether `pending` starts at the beginning of a line (where the end marker may stand).
  let atLineStart = true;
  let ended = false;
  for await (const chunk of source) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (ended) {
        if (pending.length > 0) throw new ArchiveFormatError("data after the end of the archive");
        break;
      }
      if (!inSection) {
        const newline = pending.indexOf(10);
        if (newline === -1) {
          if (pending.length > 65_536) throw new ArchiveFormatError("a section header is missing");
          break;
        }
        const line = pending.subarray(0, newline + 1);
        pending = pending.subarray(newline + 1);
        if (line.equals(ARCHIVE_END)) {
          ended = true;
          continue;
        }
        yield { type: "section", header: parseHeader(line.toString("utf8", 0, line.length - 1)) };
        inSection = true;
        atLineStart = true;
        continue;
      }
      const end = findSectionEnd(pending, atLineStart);
      if (end === -1) {
        // Keep the last two bytes: the marker may begin in them and end in the next chunk.
        const emit = pending.length - 2;
        if (emit > 0) {
          yield { type: "rows", chunk: pending.subarray(0, emit) };
          atLineStart = pending[emit - 1] === 10;
          pending = pending.subarray(emit);
        }
        break;
      }
      if (end > 0) yield { type: "rows", chunk: pending.subarray(0, end) };
      yield { type: "section_end" };
      pending = pending.subarray(end + SECTION_END.length);
      inSection = false;
    }
  }
  if (!ended) throw new ArchiveFormatError("the archive is truncated");
}

function findSectionEnd(buffer: Buffer, atLineStart: boolean): number {
  for (let at = buffer.indexOf(SECTION_END); at !== -1; at = buffer.indexOf(SECTION_END, at + 1)) {
    if (at === 0 ? atLineStart : buffer[at - 1] === 10) return at;
  }
  return -1;
}

function parseHeader(line: string): SectionHeader {
  if (!line.startsWith(HEADER_PREFIX)) throw new ArchiveFormatError("a section header is missing");
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.slice(HEADER_PREFIX.length));
  } catch {
    throw new ArchiveFormatError("a section header is not JSON");
  }
  const header = parsed as Partial<SectionHeader>;
  if (typeof header.collection !== "string" || !Array.isArray(header.columns) || !header.columns.every((column) => typeof column === "string"))
    throw new ArchiveFormatError("a section header names no collection or columns");
  return { collection: header.collection, columns: header.columns };
}

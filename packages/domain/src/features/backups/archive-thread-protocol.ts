import type { SectionHeader } from "./archive-format";

/** How the archive thread reaches PostgreSQL: the plain-data part of the process's postgres.js options. */
export interface ThreadConnection {
  /** Every host as `host:port`, comma-separated, as postgres.js reads a multi-host setting. */
  host: string;
  path: string | undefined;
  database: string;
  user: string;
  pass: string | undefined;
  ssl: unknown;
  connection: Record<string, string | number | boolean | undefined>;
}

export interface ArchiveThreadData {
  connection: ThreadConnection;
  /** From `pg_export_snapshot()`: the thread reads as of the backup's snapshot. */
  snapshot: string;
}

/** Heap blocks `from` to `to` (exclusive; null: to the end) of a collection split between parts. */
export interface BlockRange {
  from: number;
  to: number | null;
}

/** What one section of a part holds: a whole collection, or one block range of it. */
export interface SectionPlan extends SectionHeader {
  blocks?: BlockRange;
}

export interface SectionDone extends SectionPlan {
  rows: number;
  bytes: number;
  sha256: string;
}

/** Compressed chunks the parent may have unwritten at once; the thread waits for a credit beyond that. */
export const CHUNK_CREDITS = 8;

export type ArchiveThreadMessage =
  /** The snapshot is imported: the thread takes a part. */
  | { type: "ready" }
  | { type: "chunk"; chunk: Uint8Array }
  /** Rows this thread has read so far, over every part. */
  | { type: "rows"; rows: number }
  /** The part's compressed stream has ended; the next part may be given. */
  | { type: "part"; sections: SectionDone[] }
  /** Told to finish: its transaction is over and its connection closed. */
  | { type: "done" }
  | { type: "error"; message: string };

/** A credit answers a chunk once it is written on; a part is the next to write, and `finish` ends the thread's transaction. */
export type ArchiveParentMessage = { type: "credit" } | { type: "part"; sections: SectionPlan[] } | { type: "finish" };

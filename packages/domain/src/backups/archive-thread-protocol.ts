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
  sections: SectionHeader[];
}

export interface SectionDone extends SectionHeader {
  rows: number;
  bytes: number;
  sha256: string;
}

/** Compressed chunks the parent may have unwritten at once; the thread waits for a credit beyond that. */
export const CHUNK_CREDITS = 8;

export type ArchiveThreadMessage =
  | { type: "chunk"; chunk: Uint8Array }
  | { type: "rows"; rows: number }
  | { type: "section"; section: SectionDone }
  | { type: "done" }
  | { type: "error"; message: string };

/** The parent's answer to a chunk once it is written on: the thread may send one more. */
export type ArchiveParentMessage = { type: "credit" };

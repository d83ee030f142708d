import type { Readable } from "node:stream";

/** A file on its way out: where (the folders below the destination's own, then the name), its size, type and bytes. */
export interface OutgoingFile {
  folders: string[];
  filename: string;
  size: number;
  contentType: string;
  body: Readable;
}

/** One destination kind. `write` answers the remote path; a file already there with the same size counts as written (a retry after a crash). */
export interface DeliveryTarget {
  write(file: OutgoingFile): Promise<string>;
  /**
   * Aborts the multipart uploads begun before `startedBefore` that attempts left under Meridian's
   * own keys at the destination (killed mid-upload, or the destination down when they aborted);
   * answers how many. Only kinds with uploads that linger have it. StorageCallUnsupported when the
   * destination cannot list them.
   */
  abortLeftUploads?(options: { startedBefore: Date }): Promise<number>;
  /** Writes a small file at the destination's top and removes it again: the settings and secrets work. */
  probe(): Promise<void>;
}

/** Above `largeBytes` a kind sends in pieces of `chunkBytes`; `largeBytes` undefined means the contract's size for the kind. */
export interface DeliveryLimits {
  largeBytes: number | undefined;
  chunkBytes: number;
}

export const PROBE_NAME = ".meridian-destination-test";

/** How often the files are read again while a frame waits for its analysis: no event tells the page an analysis ended. */
const POLL_EVERY_MS = 4_000;
/** A frame still queued an hour after its upload is one integrity reports (FRAME_NOT_ANALYSED): the page stops asking by then. */
const POLL_FOR_MS = 60 * 60_000;

interface MaybeFrameFile {
  createdAt: string;
  frame: { status: string } | null;
}

/** The files query's refetch interval: a few seconds while a recent frame is queued, else none. */
export function framePollInterval(files: readonly MaybeFrameFile[] | undefined, now = Date.now()): number | false {
  const waiting = files?.some((file) => file.frame?.status === "queued" && now - Date.parse(file.createdAt) < POLL_FOR_MS);
  return waiting ? POLL_EVERY_MS : false;
}

/** How many frames wait for their analysis: when it falls, the observation's progress changed too. */
export const queuedFrames = (files: readonly MaybeFrameFile[] | undefined) => files?.filter((file) => file.frame?.status === "queued").length ?? 0;

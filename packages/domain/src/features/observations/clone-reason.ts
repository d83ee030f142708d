const CLONED_FROM = "cloned from ";

/** A clone's first history reason, kept in words for clients that read only `reason`. */
export const cloneReason = (sourceId: string) => `${CLONED_FROM}${sourceId}`;

/** The observation a first history entry says it was cloned from, so a client can link it; null for any other entry. */
export const clonedFromOf = (entry: { from: string | null; reason: string | null }) =>
  entry.from === null && entry.reason?.startsWith(CLONED_FROM) ? entry.reason.slice(CLONED_FROM.length) : null;

import type { StoredDocument, UserDoc } from "@meridian/db";

/** Who made a request: the user behind a session token or API key. */
export interface Principal {
  user: StoredDocument<UserDoc>;
  via: "session" | "apiKey";
  /** The session or API key id that authenticated the request. */
  credentialId: string;
}

/** A principal as cached: with when its credential stops working and, for keys, when last use was recorded. */
export type CachedPrincipal = Principal & {
  tokenExpiresAt: number | null;
  lastUsedAt?: string | null;
  /** `lastUsedAt` read as milliseconds, once: parsing it on every request was a measurable share of a cached read. */
  lastUsedMs?: number;
};

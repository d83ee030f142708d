import { createHash, randomBytes } from "node:crypto";

export const SESSION_TOKEN_PREFIX = "mst_";
export const API_KEY_PREFIX = "mak_";

export const generateSecret = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`;

/** Tokens are high-entropy, so a fast hash suffices; only the hash is stored. */
export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

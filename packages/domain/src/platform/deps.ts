import type { Env, Logger } from "@meridian/config";
import type { Database, ObjectStorage } from "@meridian/db";
import type postgres from "postgres";
import type { RequestCaches } from "./cache/request-caches";
import type { SecretBox } from "./secrets/secret-box";

/** What every domain function may use; built once per process and passed in. */
export interface Deps {
  db: Database;
  sql: postgres.Sql;
  storage: ObjectStorage;
  env: Env;
  logger: Logger;
  /** Encrypts secrets at rest (AES-256-GCM). */
  secrets: SecretBox;
  /** Per-process caches of hot reads, invalidated across processes by NOTIFY. */
  caches: RequestCaches;
  /** The current time; tests replace it to move time forward. */
  now: () => Date;
  /** Where this process's HTTP server listens, set once it does: the origin of email links when PUBLIC_URL is unset. */
  listeningOn?: string;
}

import type { Env, Logger } from "@meridian/config";
import type { Database, ObjectStorage } from "@meridian/db";
import type postgres from "postgres";

/** What every domain function may use; built once per process and passed in. */
export interface Deps {
  db: Database;
  sql: postgres.Sql;
  storage: ObjectStorage;
  env: Env;
  logger: Logger;
  /** The current time; tests replace it to move time forward. */
  now: () => Date;
}

import { randomUUID } from "node:crypto";
import { databaseConnectionBudget, type Env, type Logger, type ProcessKind } from "@meridian/config";
import {
  connectDatabase,
  createObjectStorage,
  embeddedStoreDirectory,
  foldsUnicodeCase,
  migrateDatabase,
  startEmbeddedPostgres,
  startEmbeddedS3,
  type EmbeddedPostgres,
  type EmbeddedS3,
} from "@meridian/db";
import type { Deps } from "../deps";
import { CACHE_CHANNEL, RequestCaches } from "../cache/request-caches";
import { createSecretBox, loadSecretsKey } from "../secrets/secret-box";

export interface Runtime {
  deps: Deps;
  databaseUrl: string;
  /** This process's name in pg_stat_activity; its job runners use it too. */
  applicationName: string;
  embedded: { postgres: boolean; objectStorage: boolean };
  /** Closes pools and stops embedded servers, in that order. */
  stop(): Promise<void>;
}

/**
 * Each kind of process's pool has its own statement_timeout: a server's serves requests, a worker's runs
 * job bodies, and a process that does both (`all`) takes the jobs' (its requests' deadline,
 * REQUEST_TIMEOUT_MS, cancels their statements sooner). Backups set their own on their connections;
 * the admin CLI sets none.
 */
const statementTimeoutOf = (env: Env, kind: ProcessKind) =>
  kind === "server" ? env.REQUEST_STATEMENT_TIMEOUT_MS : kind === "admin" ? 0 : env.JOB_STATEMENT_TIMEOUT_MS;

/**
 * Brings up what every process needs: PostgreSQL (embedded unless DATABASE_URL), migrations,
 * and object storage (embedded unless S3_ENDPOINT), then returns the shared Deps.
 */
export async function startRuntime(options: { env: Env; logger: Logger; kind: ProcessKind; applicationName?: string }): Promise<Runtime> {
  const { env, logger } = options;
  const applicationName = options.applicationName ?? `meridian-${options.kind}:${randomUUID()}`;
  let embeddedPostgres: EmbeddedPostgres | undefined;
  let embeddedS3: EmbeddedS3 | undefined;
  const stops: Array<() => Promise<void>> = [];
  try {
    let databaseUrl = env.DATABASE_URL;
    if (!databaseUrl) {
      embeddedPostgres = await startEmbeddedPostgres({ dataDir: env.DATA_DIR, port: env.EMBEDDED_POSTGRES_PORT, systemDir: env.MERIDIAN_SYSTEM_DIR, logger });
      databaseUrl = embeddedPostgres.url;
      stops.unshift(() => embeddedPostgres!.stop());
    }
    const database = connectDatabase(databaseUrl, {
      max: databaseConnectionBudget(env, options.kind).pool,
      applicationName,
      connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS,
      statementTimeoutMs: statementTimeoutOf(env, options.kind),
    });
    stops.unshift(() => database.close());
    await migrateDatabase(database);
    if (options.kind !== "admin" && !(await foldsUnicodeCase(database)))
      logger.warn(
        "this database's locale (C or POSIX) folds only ASCII letters: searching users and observations for accented letters is case-sensitive. " +
          "A database made with a Unicode locale (PostgreSQL 17+: LOCALE_PROVIDER builtin, BUILTIN_LOCALE 'C.UTF-8'; before: LOCALE 'C.UTF-8') folds them; " +
          "move the data there with pg_dump and pg_restore (embedded clusters made before 2026-11-26: see docs/decisions/0002)",
      );

    let storageConfig;
    if (env.S3_ENDPOINT) {
      storageConfig = {
        endpoint: env.S3_ENDPOINT,
        bucket: env.S3_BUCKET,
        region: env.S3_REGION,
        accessKeyId: env.S3_ACCESS_KEY_ID ?? "",
        secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? "",
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
      };
    } else {
      embeddedS3 = await startEmbeddedS3({ directory: embeddedStoreDirectory(env.DATA_DIR), port: env.EMBEDDED_S3_PORT });
      stops.unshift(() => embeddedS3!.stop());
      storageConfig = {
        endpoint: embeddedS3.endpoint,
        bucket: env.S3_BUCKET,
        region: env.S3_REGION,
        accessKeyId: embeddedS3.accessKeyId,
        secretAccessKey: embeddedS3.secretAccessKey,
        forcePathStyle: true,
      };
    }
    const storage = createObjectStorage(storageConfig);
    stops.unshift(async () => storage.destroy());
    await storage.ensureBucket();

    const secrets = createSecretBox(await loadSecretsKey({ secretsKey: env.SECRETS_KEY, dataDir: env.DATA_DIR }));
    const caches = new RequestCaches(env.REQUEST_CACHE_TTL_MS);
    // On every (re)connect of the LISTEN connection: changes made while it was down were missed, so start empty.
    const cacheSubscription = await database.sql.listen(
      CACHE_CHANNEL,
      (payload) => caches.applyMessage(payload),
      () => caches.clear(),
    );
    stops.unshift(async () => void (await cacheSubscription.unlisten().catch(() => undefined)));
    const deps: Deps = { db: database.db, sql: database.sql, storage, env, logger, secrets, caches, now: () => new Date() };
    return {
      deps,
      databaseUrl,
      applicationName,
      embedded: { postgres: Boolean(embeddedPostgres), objectStorage: Boolean(embeddedS3) },
      async stop() {
        for (const stop of stops) await stop().catch((error) => logger.error({ err: error }, "error during shutdown"));
      },
    };
  } catch (error) {
    for (const stop of stops) await stop().catch(() => undefined);
    throw error;
  }
}

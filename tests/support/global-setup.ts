import { chmodSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createLogger } from "@meridian/config";
import { connectDatabase, migrateDatabase, startEmbeddedPostgres, startEmbeddedS3 } from "@meridian/db";
import type { TestProject } from "vitest/node";
import { freePort } from "../../scripts/free-port";
import { claimRunFolder, removeRunFolder, RUN_FOLDER_PREFIX, sweepAbandonedRuns } from "./run-leftovers";

export const TEMPLATE_DATABASE = "meridian_template";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
    templateDatabase: string;
    s3Endpoint: string;
    s3Credentials: { accessKeyId: string; secretAccessKey: string };
  }
}

/**
 * One real PostgreSQL and one S3-protocol server for the whole run. A template database is
 * migrated once; each test file clones it (see test-database.ts), as graphile-worker's suite does.
 */
export default async function setup(project: TestProject) {
  const { services, stop } = await startRunServices(openRunFolder(project));
  provideRunServices(project, services);
  return stop;
}

/** What the run's services give the test files (`inject`). */
export interface RunServices {
  postgresUrl: string;
  s3Endpoint: string;
  s3Credentials: { accessKeyId: string; secretAccessKey: string };
}

export function provideRunServices(project: TestProject, services: RunServices): void {
  project.provide("postgresUrl", services.postgresUrl);
  project.provide("templateDatabase", TEMPLATE_DATABASE);
  project.provide("s3Endpoint", services.s3Endpoint);
  project.provide("s3Credentials", services.s3Credentials);
}

/** The run's folder, inside which every temporary folder of the run lies, and its removal. */
interface RunFolder {
  root: string;
  cleanUp: () => void;
}

/**
 * Makes the run's folder, the temporary directory of everything the run starts, and registers its removal
 * (on Ctrl-C, SIGTERM and exit): synchronously, before anything else of the setup waits.
 */
export function openRunFolder(project: TestProject): RunFolder {
  const systemTmp = os.tmpdir();
  sweepAbandonedRuns(systemTmp);
  // From the folder's making to its cleanup's registration, nothing may wait: a Ctrl-C handled in
  // between (an `await` lets one in) ended the run before anything knew to remove the folder.
  const root = mkdtempSync(path.join(systemTmp, RUN_FOLDER_PREFIX));
  // vitest's module cache (in the temporary directory, made before this folder) goes with the run.
  const vitestCache = (project as unknown as { tmpDir?: string }).tmpDir;
  claimRunFolder(root, vitestCache ? [vitestCache] : []);
  chmodSync(root, 0o755);
  const cleanUp = stopOnInterrupt(root);
  // Every temporary folder of the run (test servers' data, second PostgreSQL servers, browsers'
  // profiles) goes inside the run's folder, so removing it leaves nothing: workers inherit this.
  process.env.TMPDIR = root;
  return { root, cleanUp };
}

/** Starts the run's PostgreSQL (with its migrated template) and S3-protocol server in the run's folder; answers their teardown. */
export async function startRunServices(run: RunFolder): Promise<{ services: RunServices; stop: () => Promise<void> }> {
  const { root, cleanUp } = run;
  const logger = createLogger({ level: "warn", name: "test-setup" });
  // The S3-protocol server starts while PostgreSQL does (initdb and its start are another process's work).
  const [postgresStart, s3Start] = await Promise.allSettled([
    freePort().then((port) => startEmbeddedPostgres({ dataDir: root, port, logger })),
    startEmbeddedS3({ directory: path.join(root, "objects") }),
  ]);
  if (postgresStart.status === "rejected" || s3Start.status === "rejected") {
    if (postgresStart.status === "fulfilled") await postgresStart.value.stop();
    if (s3Start.status === "fulfilled") await s3Start.value.stop();
    throw postgresStart.status === "rejected" ? postgresStart.reason : (s3Start as PromiseRejectedResult).reason;
  }
  const postgres = postgresStart.value;
  const s3 = s3Start.value;
  const admin = connectDatabase(postgres.url, { max: 1 });
  // The run's cluster is deleted with the run, so nothing in it has to outlive a crash of the machine:
  // no fsync and no full-page images. Every commit, CREATE DATABASE from the template and DROP
  // DATABASE's checkpoint otherwise waited on the disk, and on a busy CI disk a drop's checkpoint
  // outlasted a 60 s hook (database-locale, CI run 87). A crash of PostgreSQL alone still loses nothing.
  await admin.sql.unsafe("alter system set fsync = off");
  await admin.sql.unsafe("alter system set full_page_writes = off");
  await admin.sql.unsafe("select pg_reload_conf()");
  await admin.sql.unsafe(`create database ${TEMPLATE_DATABASE}`);
  await admin.close();
  const templateUrl = postgres.url.replace(/\/postgres$/, `/${TEMPLATE_DATABASE}`);
  const template = connectDatabase(templateUrl, { max: 1 });
  await migrateDatabase(template);
  await template.close();

  return {
    services: { postgresUrl: postgres.url, s3Endpoint: s3.endpoint, s3Credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } },
    stop: async () => {
      await s3.stop();
      await postgres.stop();
      cleanUp();
    },
  };
}

/**
 * Ctrl-C and SIGTERM end vitest within a millisecond, before any teardown: stop the run's
 * PostgreSQL servers and remove its folder synchronously first, then end with the signal's code.
 * On `exit` too, for a run that ends any other way. Returns the same cleanup, for the teardown.
 */
function stopOnInterrupt(root: string) {
  let done = false;
  const cleanUp = () => {
    if (done) return;
    done = true;
    removeRunFolder(root);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    cleanUp();
    process.exit(signal === "SIGINT" ? 130 : signal === "SIGHUP" ? 129 : 143);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, onSignal);
  process.once("exit", cleanUp);
  return () => {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(signal, onSignal);
    process.off("exit", cleanUp);
    cleanUp();
  };
}

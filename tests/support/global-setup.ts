import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger } from "@meridian/config";
import { connectDatabase, migrateDatabase, startEmbeddedPostgres, startEmbeddedS3 } from "@meridian/db";
import type { TestProject } from "vitest/node";
import { freePort } from "./free-port";

export const TEMPLATE_DATABASE = "meridian_template";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
    templateDatabase: string;
    s3Endpoint: string;
  }
}

/**
 * One real PostgreSQL and one S3-protocol server for the whole run. A template database is
 * migrated once; each test file clones it (see test-database.ts), as graphile-worker's suite does.
 */
export default async function setup(project: TestProject) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-test-"));
  await fs.chmod(root, 0o755);
  const logger = createLogger({ level: "warn", name: "test-setup" });
  const postgres = await startEmbeddedPostgres({ dataDir: root, port: await freePort(), logger });
  const admin = connectDatabase(postgres.url, { max: 1 });
  await admin.sql.unsafe(`create database ${TEMPLATE_DATABASE}`);
  await admin.close();
  const templateUrl = postgres.url.replace(/\/postgres$/, `/${TEMPLATE_DATABASE}`);
  const template = connectDatabase(templateUrl, { max: 1 });
  await migrateDatabase(template);
  await template.close();
  const s3 = await startEmbeddedS3({ directory: path.join(root, "objects") });

  project.provide("postgresUrl", postgres.url);
  project.provide("templateDatabase", TEMPLATE_DATABASE);
  project.provide("s3Endpoint", s3.endpoint);

  return async () => {
    await s3.stop();
    await postgres.stop();
    await fs.rm(root, { recursive: true, force: true });
  };
}

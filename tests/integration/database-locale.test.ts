import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { createLogger, loadEnv } from "@meridian/config";
import { connectDatabase } from "@meridian/db";
import { startRuntime } from "@meridian/domain/platform";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase } from "../support/test-database";
import { runStoreEnv } from "../support/run-store";

const made: string[] = [];
afterAll(async () => {
  const admin = connectDatabase(inject("postgresUrl"), { max: 1 });
  for (const name of made) await admin.sql.unsafe(`drop database if exists ${name} with (force)`);
  await admin.close();
});

/** A server process's runtime over `databaseUrl`, and what it logged while starting. */
async function startedOver(databaseUrl: string) {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  const env = loadEnv({
    NODE_ENV: "test",
    DATABASE_URL: databaseUrl,
    ...runStoreEnv(`test-${randomBytes(4).toString("hex")}`),
    SECRETS_KEY: "test secrets key shared by every process of this run",
  });
  const runtime = await startRuntime({ env, logger: createLogger({ level: "warn", destination: sink }), kind: "server" });
  await runtime.stop();
  return lines.filter((line) => line.level >= 40).map((line) => line.msg);
}

describe("a server starting over a database whose locale folds only ASCII", () => {
  it("warns that accented search is case-sensitive, and says how to move the data", async () => {
    const name = `c_locale_${randomBytes(4).toString("hex")}`;
    made.push(name);
    const admin = connectDatabase(inject("postgresUrl"), { max: 1 });
    await admin.sql.unsafe(`create database ${name} template template0 encoding 'UTF8' locale_provider libc locale 'C'`);
    await admin.close();

    const warnings = await startedOver(inject("postgresUrl").replace(/\/postgres$/, `/${name}`));
    expect(warnings).toEqual([expect.stringMatching(/folds only ASCII letters.*pg_dump and pg_restore/)]);
  });

  it("says nothing of it over a database made as Meridian makes them", async () => {
    const database = await createTestDatabase();
    made.push(database.name);
    expect(await startedOver(database.url)).toEqual([]);
  });
});

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { connectDatabase, type DatabaseHandle } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { startServerWithAdmin } from "../support/json-api";
import { startOwnPostgres, type OwnPostgres } from "../support/own-postgres";
import type { TestServer } from "../support/test-server";
import { mountTmpfs, type Tmpfs } from "../support/tmpfs";
import { until } from "../support/until";

/**
 * PostgreSQL out of space: the test's database lives in a tablespace on a 48 MB tmpfs, and a
 * ballast table fills it until PostgreSQL refuses to extend a file (53100 disk_full). Its WAL stays
 * on the run's disk, so PostgreSQL itself keeps running, as it does when a data disk is full and
 * its WAL disk is not.
 *
 * On a PostgreSQL of this file's own, never the run's shared one: while the disk is full, dirty
 * buffers of this database cannot be written, and whichever backend evicts one fails with ENOSPC,
 * so on the shared cluster unrelated files failed (CI, stop 63: 157 files). A reserve file on the
 * same disk is removed first when space is freed, so freeing never needs PostgreSQL to find room.
 */
const ADMIN = { email: "database-disk-full-admin@example.com", password: "database disk full admin password" };
const RESERVE_MEGABYTES = 8;
const name = `disk_full_${randomBytes(4).toString("hex")}`;
let postgresServer: OwnPostgres | undefined;
let disk: Tmpfs | undefined;
let cluster: DatabaseHandle | undefined;
let database: DatabaseHandle | undefined;
let server: TestServer | undefined;
let owner: Account;

const postgresUser = () => ({
  uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()),
  gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim()),
});
const reserveFile = () => path.join(disk!.dir, "reserve");

beforeAll(async () => {
  postgresServer = await startOwnPostgres("database-disk-full-test");
  disk = await mountTmpfs({ megabytes: 48, owner: postgresUser() });
  await fs.writeFile(reserveFile(), Buffer.alloc(RESERVE_MEGABYTES * 1024 * 1024, 1));
  cluster = connectDatabase(postgresServer.url, { max: 1 });
  await cluster.sql.unsafe(`create tablespace ${name} location '${disk.dir}'`);
  await cluster.sql.unsafe(`create database ${name} tablespace ${name}`);
  const url = postgresServer.url.replace(/\/postgres$/, `/${name}`);
  ({ server } = await startServerWithAdmin(ADMIN, { DATABASE_URL: url }));
  owner = await createAccount(server);
  database = connectDatabase(url, { max: 1 });
  await database.sql`create table ballast (filler text)`;
}, 120_000);

afterAll(async () => {
  try {
    await server?.stop();
    await database?.close();
    if (disk) await fs.rm(reserveFile(), { force: true });
    await cluster?.close();
    await postgresServer?.stop();
  } finally {
    await disk?.unmount();
    await postgresServer?.remove();
  }
}, 60_000);

/** Adds a megabyte at a time to the ballast (rows under 2 kB are stored as they are, uncompressed) until PostgreSQL refuses for want of space. */
async function fillDatabaseDisk() {
  for (;;) {
    try {
      await database!.sql`insert into ballast select repeat(md5(random()::text), 32) from generate_series(1, 1000)`;
    } catch (error) {
      if ((error as { code?: string }).code === "53100") return;
      throw error;
    }
  }
}

interface Health {
  status: string;
  checks: { database: { status: string; outOfSpaceSince?: string } };
}
const health = async () => {
  const response = await server!.request("/api/health");
  return { status: response.status, body: (await response.json()) as Health };
};
const newObservatory = () =>
  server!.request("/observatories", { method: "POST", token: owner.token, json: { name: `Scope ${randomBytes(3).toString("hex")}` } });

describe("a database whose disk is full", () => {
  it("answers writes 507 INSUFFICIENT_STORAGE with Retry-After, serves reads, and reports the database degraded", async () => {
    await fillDatabaseDisk();
    const refused = await newObservatory();
    const problem = await expectProblem(refused, 507, "INSUFFICIENT_STORAGE");
    expect(problem.detail).toMatch(/^The database has no room left/);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);

    const me = await server!.request("/api/v1/auth/me", { token: owner.token });
    expect(me.status).toBe(200);
    // Still 200: reads are served. Each check is time-boxed, so a loaded machine may need a second look.
    const degraded = await until("the database reported out of space", async () => {
      const result = await health();
      return result.body.checks.database.status === "degraded" ? result : undefined;
    });
    expect(degraded.status).toBe(200);
    expect(degraded.body.status).toBe("degraded");
    expect(Date.parse(degraded.body.checks.database.outOfSpaceSince!)).not.toBeNaN();
  });

  it("takes writes again, and reports the database ok, once space is freed, without a restart", async () => {
    await fs.rm(reserveFile());
    await database!.sql`drop table ballast`;
    const healed = await until("the database reported ok", async () => {
      const result = await health();
      return result.body.checks.database.status === "ok" ? result : undefined;
    });
    expect(healed.body.checks.database.outOfSpaceSince).toBeUndefined();
    expect((await newObservatory()).status).toBe(201);
  });
});

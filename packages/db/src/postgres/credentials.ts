import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import postgres from "postgres";

export const SUPERUSER = "meridian";
/** What clusters made before passwords were generated used; only ever read to replace it. */
const LEGACY_PASSWORD = "meridian";

export const passwordFile = (root: string) => path.join(root, "postgres.password");
const portFile = (root: string) => path.join(root, "postgres.port");

export const newPassword = () => randomBytes(24).toString("base64url");

/** Written readable by its owner only: anyone who can read it is the database superuser. */
export async function writeSecret(file: string, value: string, owner?: { uid?: number; gid?: number }) {
  const temporary = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temporary, `${value}\n`, { mode: 0o600 });
  if (owner?.uid !== undefined) await fs.chown(temporary, owner.uid, owner.gid!);
  await fs.rename(temporary, file);
}

export async function readPassword(root: string): Promise<string | undefined> {
  const text = await fs.readFile(passwordFile(root), "utf8").catch(() => undefined);
  return text?.trim() || undefined;
}

/**
 * A cluster made by an earlier version still has the constant password: replace it with a
 * random one kept in DATA_DIR, so no other local user can sign in as its superuser.
 */
export async function rotateLegacyPassword(root: string, port: number): Promise<string> {
  const password = newPassword();
  const sql = postgres({ host: "127.0.0.1", port, user: SUPERUSER, password: LEGACY_PASSWORD, database: "postgres", max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe(`alter role ${SUPERUSER} with password '${password}'`);
  } finally {
    await sql.end({ timeout: 5 });
  }
  await writeSecret(passwordFile(root), password);
  return password;
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });

const anyFreePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

/**
 * The port this cluster listens on: the one recorded for it, else the preferred one; when that
 * is taken (another instance, another program), a free one, recorded for the next start.
 */
export async function choosePort(root: string, preferred: number): Promise<number> {
  const recorded = Number((await fs.readFile(portFile(root), "utf8").catch(() => "")).trim());
  const wanted = Number.isInteger(recorded) && recorded > 0 ? recorded : preferred;
  const port = (await portIsFree(wanted)) ? wanted : await anyFreePort();
  if (port !== recorded) await fs.writeFile(portFile(root), `${port}\n`);
  return port;
}

/** The port of a running cluster, from the fourth line of its postmaster.pid. */
export async function runningPort(pgdata: string): Promise<number | undefined> {
  const lines = (await fs.readFile(path.join(pgdata, "postmaster.pid"), "utf8").catch(() => "")).split("\n");
  const port = Number(lines[3]?.trim());
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

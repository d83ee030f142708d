import { backupsCollection, observationsCollection } from "@meridian/db";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { freePort } from "../../scripts/free-port";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { runAdminCli } from "../support/admin-cli";
import { observationDocument, stuckFor } from "../support/observation-documents";
import { holdTable } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "cli-admin@example.com", password: "cli admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
let stuck: string;
let observatoryId: string;
let projectId: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "server" }));
  owner = await createAccount(server);
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { scanSchedule: { quick: null, full: null } } }, 200);
  observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Shell" } }, 201)) as { id: string }).id;
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Shell" } }, 201)) as { id: string }).id;
  const doc = observationDocument({ projectId, observatoryId, ownerId: owner.id }, stuckFor("assigned", 72));
  stuck = (await observationsCollection.insert(server.server.runtime.deps.db, doc)).id;
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

/** `pnpm admin ...args` against the test server's database and bucket, to its exit, run in this process (runCli). */
const admin = (...args: string[]) => adminWith({}, ...args);

/** The same, with `env` over the test server's (a variable given as undefined is left out). */
async function adminWith(env: Record<string, string | undefined>, ...args: string[]) {
  return runAdminCli(server, args, { NEW_ADMIN_PASSWORD: "a new admin's password", ...env });
}

// Each command runs in this process as the binary runs it (runCli); tests/processes/admin-cli-binary.test.ts runs the binary itself.
// Generous limits: a backup, a restore and the scans run here, on a loaded machine.
describe("the admin CLI (pnpm admin)", { timeout: 600_000 }, () => {
  it("runs a scan with the same domain functions, prints JSON for scripts and repairs what it found", async () => {
    const scan = await admin("--json", "scan", "--kind", "full", "--collections", "observations");
    expect(scan.code, scan.output).toBe(0);
    const result = scan.json();
    expect(result).toMatchObject({ kind: "full", status: "completed", summary: { warning: 1 } });
    // The API sees the scan the shell ran, as started from the command line.
    expect(await must(`/api/v1/admin/integrity/scans/${result.id as string}`, { token: adminToken }, 200)).toMatchObject({ trigger: "cli", startedBy: null });

    const issues = await admin("--json", "issues", result.id as string, "--fixable");
    const [issue] = (issues.json() as { items: Array<{ id: string; documentId: string; code: string }> }).items;
    expect(issue).toMatchObject({ documentId: stuck, code: "STUCK_ASSIGNED" });
    const repaired = await admin("--json", "repair", issue!.id);
    expect(repaired.code).toBe(0);
    expect(repaired.json()).toMatchObject({ status: "repaired" });
    expect(((await must(`/observations/${stuck}`, { token: owner.token }, 200)) as { status: string }).status).toBe("pending");
  });

  it("reads and changes settings, gives analytics and creates a server admin", async () => {
    expect((await admin("settings", "set", "staleAssignedHours=36", 'minimumPluginVersion="3.8.0.0"')).code).toBe(0);
    const settings = (await must("/api/v1/admin/settings", { token: adminToken }, 200)) as { staleAssignedHours: number; minimumPluginVersion: string };
    expect(settings).toMatchObject({ staleAssignedHours: 36, minimumPluginVersion: "3.8.0.0" });
    // Neither reads what the other writes: the commands run side by side.
    const [read, analytics, created] = await Promise.all([
      admin("--json", "settings"),
      admin("--json", "analytics"),
      admin("--json", "create-admin", "second-admin@example.com"),
    ]);
    expect(read.json()).toMatchObject({ staleAssignedHours: 36 });
    expect(analytics.json()).toMatchObject({ scope: "system", observatoryCount: 1, observationCount: 1 });
    expect(created.json()).toMatchObject({ outcome: "created" });
    const login = await server.request("/api/v1/auth/login", {
      method: "POST",
      json: { email: "second-admin@example.com", password: "a new admin's password" },
    });
    expect(login.status).toBe(200);
  });

  it("exits with codes scripts can trust: 2 for bad usage or input, 3 for a conflict, 4 for what does not exist", async () => {
    // Refusals change nothing: the commands run side by side.
    const refusals = await Promise.all([
      admin("no-such-command"),
      admin("settings", "set", "staleAssignedHours=0"),
      admin("scan", "--kind", "sideways"),
      admin("issues", "scn_any", "--severity", "urgent"),
      admin("repair", "iss_missing"),
    ]);
    expect(refusals.map((refused) => refused.code)).toEqual([2, 2, 2, 2, 4]);
    // A document changed since its scan is a conflict.
    await must(`/observations/${stuck}/cancel`, { method: "POST", token: owner.token }, 200);
    await observationsCollection.update(server.server.runtime.deps.db, stuck, (doc) => ({ ...doc, ...stuckFor("assigned", 80) }));
    const rescan = (await admin("--json", "scan", "--kind", "full", "--collections", "observations")).json();
    const fresh = (await admin("--json", "issues", rescan.id as string, "--fixable")).json() as { items: Array<{ id: string }> };
    await observationsCollection.update(server.server.runtime.deps.db, stuck, (doc) => ({ ...doc, name: "Changed since the scan" }));
    expect((await admin("repair", fresh.items[0]!.id)).code).toBe(3);
    // Newest first: the rescan leads the list.
    expect(((await admin("--json", "scans")).json() as unknown as Array<{ id: string }>)[0]!.id).toBe(rescan.id);
  });

  it("backs up, verifies, restores with --yes only, cleans up backups and observations, as the API would", async () => {
    const created = await admin("--json", "backup", "create");
    expect(created.code, created.output).toBe(0);
    const backup = created.json() as { id: string; status: string; sizeBytes: number };
    expect(backup).toMatchObject({ status: "verified" });
    expect(backup.sizeBytes).toBeGreaterThan(0);
    // For people: sizes in KiB, MiB or GiB and tables with headers; --json keeps the bytes. Reads only, so side by side.
    const [listed, shown, scans] = await Promise.all([admin("backup", "list"), admin("backup", "show", backup.id), admin("scans")]);
    expect(listed.output).toMatch(/^ID +TAKEN +SIZE +STATUS$/m);
    expect(listed.output).toMatch(new RegExp(`^${backup.id} .* \\d+(\\.\\d)? (B|KiB|MiB) +verified$`, "m"));
    expect(listed.output).not.toContain(String(backup.sizeBytes));
    expect(shown.output).toMatch(/^COLLECTION +ROWS +SIZE +SHA-256$/m);
    expect(scans.output).toMatch(/^ID +KIND +STATUS +STARTED +BY +CRITICAL +WARNING +INFO$/m);
    expect(((await must(`/api/v1/admin/backups/${backup.id}`, { token: adminToken }, 200)) as { status: string }).status).toBe("verified");
    // Side by side: a backup that does not exist and a restore refused for want of --yes leave the verification nothing to meet.
    const [verified, missing, unconfirmed] = await Promise.all([
      admin("backup", "verify", backup.id),
      admin("backup", "verify", "bak_missing"),
      admin("backup", "restore", backup.id),
    ]);
    expect([verified.code, missing.code, unconfirmed.code]).toEqual([0, 4, 2]);

    await must("/projects", { method: "POST", token: owner.token, json: { name: "After the CLI backup" } }, 201);
    const restored = await admin("--json", "backup", "restore", backup.id, "--yes");
    expect(restored.code, restored.output).toBe(0);
    const projects = (await must("/projects", { token: owner.token }, 200)) as { items: Array<{ name: string }> };
    expect(projects.items.map((project) => project.name)).not.toContain("After the CLI backup");

    // A maintenance left behind by a restore whose workers are gone can be ended from the shell.
    await server.server.runtime.deps.db.execute(sql`insert into maintenance (id, reason) values ('restore', 'Restoring')`);
    expect((await admin("--json", "maintenance")).json()).toMatchObject({ active: true, reason: "Restoring" });
    expect((await admin("--json", "maintenance", "off")).json()).toMatchObject({ active: false });
    expect((await server.request("/projects", { method: "POST", token: owner.token, json: { name: "Writable again" } })).status).toBe(201);

    // Dry runs and a refusal delete nothing: side by side.
    const [preview, unconfirmedCleanup, counted] = await Promise.all([
      admin("--json", "backup", "cleanup", "--keep-days", "0", "--dry-run"),
      admin("cleanup-observations"),
      admin("--json", "cleanup-observations", "--dry-run"),
    ]);
    expect(preview.json()).toEqual({ deleted: [], dryRun: true });
    expect(unconfirmedCleanup.code).toBe(2);
    expect(counted.json()).toMatchObject({ observations: 1 });
    const cleaned = await admin("--json", "cleanup-observations", "--backup", "--yes");
    expect(cleaned.code, cleaned.output).toBe(0);
    expect(cleaned.json()).toMatchObject({ observations: 1, backupId: expect.stringMatching(/^bak_/) });
    expect(((await must("/observations", { token: owner.token }, 200)) as { items: unknown[] }).items).toEqual([]);
  });

  it("deletes in a backup-first cleanup only observations its backup holds", async () => {
    const { db } = server.server.runtime.deps;
    await observationsCollection.insert(db, observationDocument({ projectId, observatoryId, ownerId: owner.id }, { name: "Before the backup" }));
    // The backup's COPY reaches this table and waits there, after its snapshot was taken.
    const hold = await holdTable(server.databaseUrl, "push_subscriptions");
    let run: ReturnType<typeof admin> | undefined;
    let during: string;
    try {
      run = admin("--json", "cleanup-observations", "--backup", "--yes");
      await until("the CLI's backup to wait halfway through its archive", hold.waiting, { timeoutMs: 300_000 });
      during = (await observationsCollection.insert(db, observationDocument({ projectId, observatoryId, ownerId: owner.id }, { name: "During the backup" })))
        .id;
    } finally {
      await hold.release();
    }
    const done = await run!;
    expect(done.code, done.output).toBe(0);
    const result = done.json() as { observations: number; backupId: string };
    const backup = await backupsCollection.get(db, result.backupId);
    const backedUp = backup!.doc.manifest!.collections.find((part) => part.name === "observations")!.rows;
    // Every observation the cleanup deleted can be restored from the backup it took first; the one created since stays.
    expect(result.observations).toBe(backedUp);
    expect(await observationsCollection.get(db, during!)).toBeDefined();
  });

  it("says which settings it refused and why, in the API's words", async () => {
    const refused = await admin("settings", "set", "staleAssignedHours=0", "backupSchedule=nightly", "colour=blue");
    expect(refused.code).toBe(2);
    expect(refused.output).toContain("Stale assigned hours must be at least 1.");
    expect(refused.output).toContain("The backup schedule must be a cron expression of five fields: minute hour day month weekday (UTC).");
    expect(refused.output).toContain("“colour” is not a known field.");
  });

  it("refuses a data folder without data (exit 2) for every command but create-admin, which starts one", async () => {
    const empty = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-cli-empty-"));
    const local = {
      DATABASE_URL: undefined,
      S3_ENDPOINT: undefined,
      SECRETS_KEY: undefined,
      DATA_DIR: empty,
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
    };
    // Each only looks: side by side.
    const refusals = await Promise.all([["scans"], ["settings"], ["backup", "list"]].map((command) => adminWith(local, ...command)));
    for (const refused of refusals) {
      expect(refused.code, refused.output).toBe(2);
      expect(refused.output).toContain(`No Meridian data in ${empty}`);
    }
    expect(await fs.readdir(empty)).toEqual([]);
    const created = await adminWith(local, "--json", "create-admin", "first-admin@example.com");
    expect(created.code, created.output).toBe(0);
    expect(created.json()).toMatchObject({ outcome: "created" });
    expect((await adminWith(local, "--json", "settings")).json()).toMatchObject({ staleAssignedHours: 48 });
  });
});

import { randomBytes } from "node:crypto";
import { createSecretBox } from "@meridian/domain";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

const SECRETS_KEY = randomBytes(32).toString("hex");
const ADMIN = { email: "storage-admin@example.com", password: "storage admin password" };
let server: TestServer;
let sql: postgres.Sql;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { SECRETS_KEY }));
  sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end();
  await server?.stop();
});

const box = createSecretBox(Buffer.from(SECRETS_KEY, "hex"));
type Destination = { id: string; kind: string; label: string; settings: Record<string, unknown>; configuredSecrets: string[] };
type StoredDestination = { id: string; kind: string; sealedSecrets: string | null; secretKeys: string[] };

const { call, createOrganization } = jsonApi(() => server);
const putStorage = (token: string, organizationId: string, externalStorage: unknown[]) =>
  call(`/organizations/${organizationId}`, { method: "PUT", token, json: { externalStorage } });
const storedDestinations = async (organizationId: string) => {
  const [row] = await sql<Array<{ doc: { externalStorage: StoredDestination[] } }>>`select doc from organizations where id = ${organizationId}`;
  return row!.doc.externalStorage;
};
/** Every row of every collection (and every other table) whose text holds the value. */
const rowsContaining = async (value: string) => {
  const tables = await sql<
    Array<{ table_name: string }>
  >`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`;
  const hits: string[] = [];
  for (const { table_name } of tables) {
    const [row] = await sql<Array<{ count: number }>>`select count(*)::int as count from ${sql(table_name)} t where t::text like ${`%${value}%`}`;
    if (row!.count > 0) hits.push(table_name);
  }
  return hits;
};

describe("external storage secrets", () => {
  it("stores secrets sealed with AES-256-GCM, never in plaintext, and never returns them", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const organization = await createOrganization(owner);
    expect((await call(`/organizations/${organization.id}/members`, { method: "POST", token: owner.token, json: { email: member.email } })).status).toBe(201);
    const s3Secret = `s3-secret-${randomBytes(12).toString("hex")}`;
    const dropboxToken = `dropbox-token-${randomBytes(12).toString("hex")}`;

    const updated = await putStorage(owner.token, organization.id, [
      {
        kind: "s3",
        label: "Raw frames",
        settings: { bucket: "frames", region: "eu-west-1" },
        secrets: { accessKeyId: "AKIAEXAMPLE", secretAccessKey: s3Secret },
      },
      { kind: "dropbox", label: "Shared folder", settings: { folder: "/obs" }, secrets: { accessToken: dropboxToken } },
      { kind: "google_drive", label: "Drive" },
    ]);
    expect(updated.status).toBe(200);
    expect(updated.body.externalStorage).toEqual([
      {
        id: expect.any(String),
        kind: "s3",
        label: "Raw frames",
        settings: { bucket: "frames", region: "eu-west-1" },
        configuredSecrets: ["accessKeyId", "secretAccessKey"],
      },
      { id: expect.any(String), kind: "dropbox", label: "Shared folder", settings: { folder: "/obs" }, configuredSecrets: ["accessToken"] },
      { id: expect.any(String), kind: "google_drive", label: "Drive", settings: {}, configuredSecrets: [] },
    ]);
    expect(updated.text).not.toContain(s3Secret);
    expect(updated.text).not.toContain(dropboxToken);
    expect(updated.text).not.toContain("AKIAEXAMPLE");
    expect(updated.text).not.toMatch(/sealed/i);

    // No answer to anyone, REST or tRPC, carries them.
    const reads = [
      await call(`/organizations/${organization.id}`, { token: owner.token }),
      await call(`/organizations/${organization.id}`, { token: member.token }),
      await call(`/organizations/${organization.id}`, { token: adminToken }),
      await call("/organizations", { token: member.token }),
      await call("/organizations?all=true", { token: adminToken }),
      await call(`/organizations/${organization.id}/audit`, { token: owner.token }),
      await call("/api/v1/admin/audit", { token: adminToken }),
      await call(`/trpc/organizations.get?input=${encodeURIComponent(JSON.stringify({ id: organization.id }))}`, { token: member.token }),
      await call(`/trpc/organizations.list`, { token: member.token }),
    ];
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(s3Secret);
      expect(read.text).not.toContain(dropboxToken);
      expect(read.text).not.toMatch(/sealed/i);
    }
    expect(reads[1]!.body.externalStorage.map((destination: Destination) => destination.configuredSecrets)).toEqual([
      ["accessKeyId", "secretAccessKey"],
      ["accessToken"],
      [],
    ]);

    // At rest: nowhere in the database in plaintext; the organization holds a GCM box that opens with the key.
    expect(await rowsContaining(s3Secret)).toEqual([]);
    expect(await rowsContaining(dropboxToken)).toEqual([]);
    const [s3, dropbox, drive] = await storedDestinations(organization.id);
    expect(s3!.sealedSecrets).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.parse(box.open(s3!.sealedSecrets!))).toEqual({ accessKeyId: "AKIAEXAMPLE", secretAccessKey: s3Secret });
    expect(JSON.parse(box.open(dropbox!.sealedSecrets!))).toEqual({ accessToken: dropboxToken });
    expect(drive!.sealedSecrets).toBeNull();
    // A sealed box that was tampered with does not open.
    const [version, nonce, tag, ciphertext] = s3!.sealedSecrets!.split(".");
    const flipped = Buffer.from(ciphertext!, "base64url");
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open([version, nonce, tag, flipped.toString("base64url")].join("."))).toThrow();
  });

  it("keeps the secrets of a destination re-sent by id without secrets, and replaces them when new ones are sent", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const first = `first-${randomBytes(8).toString("hex")}`;
    const created = await putStorage(owner.token, organization.id, [
      { kind: "s3", label: "Archive", settings: { bucket: "a" }, secrets: { secretAccessKey: first } },
      { kind: "dropbox", label: "To drop" },
    ]);
    const [archive, toDrop] = created.body.externalStorage as Destination[];
    const [sealedBefore] = await storedDestinations(organization.id);

    const relabelled = await putStorage(owner.token, organization.id, [{ id: archive!.id, kind: "s3", label: "Archive (renamed)", settings: { bucket: "b" } }]);
    expect(relabelled.status).toBe(200);
    expect(relabelled.body.externalStorage).toEqual([
      { id: archive!.id, kind: "s3", label: "Archive (renamed)", settings: { bucket: "b" }, configuredSecrets: ["secretAccessKey"] },
    ]);
    const [kept] = await storedDestinations(organization.id);
    expect(kept!.sealedSecrets).toBe(sealedBefore!.sealedSecrets);
    expect(JSON.parse(box.open(kept!.sealedSecrets!))).toEqual({ secretAccessKey: first });
    expect(relabelled.body.externalStorage.map((destination: Destination) => destination.id)).not.toContain(toDrop!.id);

    const second = `second-${randomBytes(8).toString("hex")}`;
    const replaced = await putStorage(owner.token, organization.id, [
      { id: archive!.id, kind: "s3", label: "Archive", secrets: { accessKeyId: "AKIA2", secretAccessKey: second } },
    ]);
    expect(replaced.body.externalStorage[0]).toMatchObject({ id: archive!.id, configuredSecrets: ["accessKeyId", "secretAccessKey"] });
    const [now] = await storedDestinations(organization.id);
    expect(JSON.parse(box.open(now!.sealedSecrets!))).toEqual({ accessKeyId: "AKIA2", secretAccessKey: second });
    expect(await rowsContaining(first)).toEqual([]);
    expect(await rowsContaining(second)).toEqual([]);

    // Other settings of the organization leave the storage alone.
    await call(`/organizations/${organization.id}`, { method: "PUT", token: owner.token, json: { description: "renamed things" } });
    expect((await storedDestinations(organization.id))[0]!.sealedSecrets).toBe(now!.sealedSecrets);
  });

  it("seals equal secrets of two destinations differently (a fresh nonce each time)", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const same = { secretAccessKey: `same-${randomBytes(8).toString("hex")}` };
    await putStorage(owner.token, organization.id, [
      { kind: "s3", label: "One", secrets: same },
      { kind: "s3", label: "Two", secrets: same },
    ]);
    const [one, two] = await storedDestinations(organization.id);
    expect(one!.sealedSecrets).not.toBe(two!.sealedSecrets);
    expect(box.open(one!.sealedSecrets!)).toBe(box.open(two!.sealedSecrets!));
  });

  it("refuses an unknown destination id, an unknown kind, unknown fields and unstorable text with 400", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const bodies = [
      [{ id: "ext_unknown", kind: "s3", label: "Ghost" }],
      [{ kind: "ftp", label: "Old" }],
      [{ kind: "s3", label: "X", password: "in the wrong place" }],
      [{ kind: "s3", label: "X", secrets: { key: 42 } }],
      [{ kind: "s3", label: "X", settings: { "bucket\u0000": "a" } }],
      [{ kind: "s3", label: "X", settings: { bucket: "a\ud800" } }],
      [{ kind: "s3", label: "X", secrets: { "name\u0000": "a" } }],
    ];
    for (const externalStorage of bodies) {
      await expectProblem(
        await server.request(`/organizations/${organization.id}`, { method: "PUT", token: owner.token, json: { externalStorage } }),
        400,
        "VALIDATION_FAILED",
      );
    }
    expect(await storedDestinations(organization.id)).toEqual([]);
  });

  it("lets only the owner and can_manage_storage change destinations; members read them without secrets", async () => {
    const owner = await createAccount(server);
    const keeper = await createAccount(server);
    const reader = await createAccount(server);
    const organization = await createOrganization(owner);
    await call(`/organizations/${organization.id}/members`, {
      method: "POST",
      token: owner.token,
      json: { email: keeper.email, permissions: { can_manage_storage: true } },
    });
    await call(`/organizations/${organization.id}/members`, {
      method: "POST",
      token: owner.token,
      json: { email: reader.email, permissions: { can_manage_members: true, can_manage_observatories: true, can_manage_projects: true } },
    });
    const secret = `keeper-${randomBytes(8).toString("hex")}`;

    const byKeeper = await putStorage(keeper.token, organization.id, [
      { kind: "google_drive", label: "Team drive", settings: { folderId: "abc" }, secrets: { refreshToken: secret } },
    ]);
    expect(byKeeper.status).toBe(200);
    await expectProblem(
      await server.request(`/organizations/${organization.id}`, { method: "PUT", token: reader.token, json: { externalStorage: [] } }),
      403,
      "FORBIDDEN",
    );

    const seen = await call(`/organizations/${organization.id}`, { token: reader.token });
    expect(seen.body.externalStorage).toEqual([
      { id: expect.any(String), kind: "google_drive", label: "Team drive", settings: { folderId: "abc" }, configuredSecrets: ["refreshToken"] },
    ]);
    expect(seen.text).not.toContain(secret);

    // The audit log records the change by names only.
    const audit = await call(`/organizations/${organization.id}/audit`, { token: owner.token });
    const entry = audit.body.items.find((item: { action: string }) => item.action === "organization.external_storage_updated");
    expect(entry).toMatchObject({
      actorId: keeper.id,
      before: [],
      after: [{ kind: "google_drive", label: "Team drive", configuredSecrets: ["refreshToken"] }],
    });
    expect(audit.text).not.toContain(secret);
  });
});

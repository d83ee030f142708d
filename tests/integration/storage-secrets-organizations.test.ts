import { randomBytes } from "node:crypto";
import { createSecretBox } from "@meridian/domain/platform";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
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
      {
        kind: "dropbox",
        label: "Shared folder",
        settings: { folder: "/obs" },
        secrets: { refreshToken: dropboxToken, appKey: "key", appSecret: "app-secret" },
      },
      { kind: "google_drive", label: "Drive", settings: { folderId: "f1" }, secrets: { refreshToken: "r", clientId: "c", clientSecret: "s" } },
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
      {
        id: expect.any(String),
        kind: "dropbox",
        label: "Shared folder",
        settings: { folder: "/obs" },
        configuredSecrets: ["appKey", "appSecret", "refreshToken"],
      },
      {
        id: expect.any(String),
        kind: "google_drive",
        label: "Drive",
        settings: { folderId: "f1" },
        configuredSecrets: ["clientId", "clientSecret", "refreshToken"],
      },
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
      ["appKey", "appSecret", "refreshToken"],
      ["clientId", "clientSecret", "refreshToken"],
    ]);

    // At rest: nowhere in the database in plaintext; the organization holds a GCM box that opens with the key.
    expect(await rowsContaining(s3Secret)).toEqual([]);
    expect(await rowsContaining(dropboxToken)).toEqual([]);
    const [s3, dropbox, drive] = await storedDestinations(organization.id);
    expect(s3!.sealedSecrets).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.parse(box.open(s3!.sealedSecrets!))).toEqual({ accessKeyId: "AKIAEXAMPLE", secretAccessKey: s3Secret });
    expect(JSON.parse(box.open(dropbox!.sealedSecrets!))).toEqual({ refreshToken: dropboxToken, appKey: "key", appSecret: "app-secret" });
    expect(JSON.parse(box.open(drive!.sealedSecrets!))).toEqual({ refreshToken: "r", clientId: "c", clientSecret: "s" });
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
      { kind: "s3", label: "Archive", settings: { bucket: "a", region: "eu-west-1" }, secrets: { accessKeyId: "AKIA1", secretAccessKey: first } },
      { kind: "dropbox", label: "To drop", settings: { folder: "/drop" }, secrets: { refreshToken: "r", appKey: "k", appSecret: "s" } },
    ]);
    const [archive, toDrop] = created.body.externalStorage as Destination[];
    const [sealedBefore] = await storedDestinations(organization.id);

    const relabelled = await putStorage(owner.token, organization.id, [
      { id: archive!.id, kind: "s3", label: "Archive (renamed)", settings: { bucket: "b", region: "eu-west-1" } },
    ]);
    expect(relabelled.status).toBe(200);
    expect(relabelled.body.externalStorage).toEqual([
      {
        id: archive!.id,
        kind: "s3",
        label: "Archive (renamed)",
        settings: { bucket: "b", region: "eu-west-1" },
        configuredSecrets: ["accessKeyId", "secretAccessKey"],
      },
    ]);
    const [kept] = await storedDestinations(organization.id);
    expect(kept!.sealedSecrets).toBe(sealedBefore!.sealedSecrets);
    expect(JSON.parse(box.open(kept!.sealedSecrets!))).toEqual({ accessKeyId: "AKIA1", secretAccessKey: first });
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
    const same = { accessKeyId: "AKIA", secretAccessKey: `same-${randomBytes(8).toString("hex")}` };
    const settings = { bucket: "b", region: "eu-west-1" };
    await putStorage(owner.token, organization.id, [
      { kind: "s3", label: "One", settings, secrets: same },
      { kind: "s3", label: "Two", settings, secrets: same },
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
      { kind: "google_drive", label: "Team drive", settings: { folderId: "abc" }, secrets: { refreshToken: secret, clientId: "c", clientSecret: "s" } },
    ]);
    expect(byKeeper.status).toBe(200);
    await expectProblem(
      await server.request(`/organizations/${organization.id}`, { method: "PUT", token: reader.token, json: { externalStorage: [] } }),
      403,
      "FORBIDDEN",
    );

    const seen = await call(`/organizations/${organization.id}`, { token: reader.token });
    expect(seen.body.externalStorage).toEqual([
      {
        id: expect.any(String),
        kind: "google_drive",
        label: "Team drive",
        settings: { folderId: "abc" },
        configuredSecrets: ["clientId", "clientSecret", "refreshToken"],
      },
    ]);
    expect(seen.text).not.toContain(secret);

    // The audit log records the change by names only.
    const audit = await call(`/organizations/${organization.id}/audit`, { token: owner.token });
    const entry = audit.body.items.find((item: { action: string }) => item.action === "organization.external_storage_updated");
    expect(entry).toMatchObject({
      actorId: keeper.id,
      before: [],
      after: [{ kind: "google_drive", label: "Team drive", configuredSecrets: ["clientId", "clientSecret", "refreshToken"] }],
    });
    expect(audit.text).not.toContain(secret);
  });
});

describe("what a destination of each kind holds", () => {
  const complete = {
    s3: {
      kind: "s3",
      label: "Bucket",
      settings: { endpoint: "http://127.0.0.1:9000", region: "eu-west-1", bucket: "frames", prefix: "meridian/", forcePathStyle: "true" },
      secrets: { accessKeyId: "AKIA", secretAccessKey: "s3-secret" },
    },
    dropbox: { kind: "dropbox", label: "Box", settings: { folder: "/Telescope" }, secrets: { refreshToken: "r", appKey: "k", appSecret: "s" } },
    google_drive: { kind: "google_drive", label: "Drive", settings: { folderId: "f1" }, secrets: { refreshToken: "r", clientId: "c", clientSecret: "s" } },
  } as const;
  type Kind = keyof typeof complete;
  const destination = (kind: Kind, change: Record<string, unknown> = {}) => ({ ...complete[kind], ...change });

  /** The `errors[]` of a refused PUT (REST) or organizations.update (tRPC, whose input checks sit under `update.`). */
  const refusal = async (face: "rest" | "trpc", token: string, organizationId: string, externalStorage: unknown[]) => {
    if (face === "rest") {
      const problem = await expectProblem(
        await server.request(`/organizations/${organizationId}`, { method: "PUT", token, json: { externalStorage } }),
        400,
        "VALIDATION_FAILED",
      );
      return problem.errors;
    }
    const response = await server.request("/trpc/organizations.update", { method: "POST", token, json: { id: organizationId, update: { externalStorage } } });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { data: { code: string; errors: Array<{ path: string; message: string }> } } };
    expect(body.error.data.code).toBe("VALIDATION_FAILED");
    return body.error.data.errors;
  };

  // Each: the destination sent, then the field it is refused at and what is said of it.
  const inputCases: Array<[string, unknown, string, string]> = [
    ["s3 without a bucket", destination("s3", { settings: { region: "eu-west-1" } }), "settings.bucket", "Bucket (external storage 1) is required."],
    [
      "s3 with an empty region",
      destination("s3", { settings: { region: " ", bucket: "b" } }),
      "settings.region",
      "Region (external storage 1) must not be empty.",
    ],
    [
      "s3 with an endpoint that is not http(s)",
      destination("s3", { settings: { region: "r", bucket: "b", endpoint: "ftp://files.example.org" } }),
      "settings.endpoint",
      "Endpoint (external storage 1) must be an http or https URL.",
    ],
    [
      "s3 with forcePathStyle that is not a boolean",
      destination("s3", { settings: { region: "r", bucket: "b", forcePathStyle: "yes" } }),
      "settings.forcePathStyle",
      "Force path style (external storage 1) must be true or false.",
    ],
    [
      "s3 with an unknown setting",
      destination("s3", { settings: { region: "r", bucket: "b", folder: "/x" } }),
      "settings.folder",
      "“folder” is not a known field.",
    ],
    [
      "s3 with one secret of two",
      destination("s3", { secrets: { secretAccessKey: "x" } }),
      "secrets.accessKeyId",
      "Access key ID (external storage 1) is required.",
    ],
    ["dropbox without a folder", destination("dropbox", { settings: {} }), "settings.folder", "Folder (external storage 1) is required."],
    [
      "dropbox with an unknown setting",
      destination("dropbox", { settings: { folder: "/x", bucket: "b" } }),
      "settings.bucket",
      "“bucket” is not a known field.",
    ],
    [
      "dropbox with an unknown secret",
      destination("dropbox", { secrets: { ...complete.dropbox.secrets, accessToken: "t" } }),
      "secrets.accessToken",
      "“accessToken” is not a known field.",
    ],
    [
      "dropbox with a missing secret",
      destination("dropbox", { secrets: { refreshToken: "r", appKey: "k" } }),
      "secrets.appSecret",
      "App secret (external storage 1) is required.",
    ],
    [
      "google_drive with an empty folderId",
      destination("google_drive", { settings: { folderId: "" } }),
      "settings.folderId",
      "Folder ID (external storage 1) must not be empty.",
    ],
    [
      "google_drive with an empty secret",
      destination("google_drive", { secrets: { ...complete.google_drive.secrets, clientSecret: "  " } }),
      "secrets.clientSecret",
      "Client secret (external storage 1) must not be empty.",
    ],
    ["an unknown kind", { kind: "ftp", label: "Old" }, "kind", "Kind (external storage 1) must be one of “google_drive”, “dropbox” or “s3”."],
    ["a destination without a kind", { label: "Old" }, "kind", "Kind (external storage 1) is required."],
  ];

  for (const face of ["rest", "trpc"] as const) {
    it.each(inputCases)(`refuses %s (${face}), at the field, and stores nothing`, async (_label, sent, field, message) => {
      const owner = await createAccount(server);
      const organization = await createOrganization(owner);
      const errors = await refusal(face, owner.token, organization.id, [sent]);
      expect(errors).toContainEqual({ path: `${face === "trpc" ? "update." : ""}externalStorage.0.${field}`, message });
      expect(await storedDestinations(organization.id)).toEqual([]);
    });

    it(`refuses a new destination without secrets or settings, and a kind change without them (${face})`, async () => {
      const owner = await createAccount(server);
      const organization = await createOrganization(owner);
      for (const kind of ["s3", "dropbox", "google_drive"] as const) {
        const { secrets: _secrets, ...withoutSecrets } = complete[kind];
        const { settings: _settings, ...withoutSettings } = complete[kind];
        expect(await refusal(face, owner.token, organization.id, [complete.s3, withoutSecrets])).toEqual([
          { path: "externalStorage.1.secrets", message: "Secrets (external storage 2) must be sent for a new destination." },
        ]);
        expect(await refusal(face, owner.token, organization.id, [withoutSettings])).toEqual([
          { path: "externalStorage.0.settings", message: "Settings (external storage 1) must be sent for a new destination." },
        ]);
      }
      expect(await storedDestinations(organization.id)).toEqual([]);

      const stored = (await putStorage(owner.token, organization.id, [complete.s3])).body.externalStorage[0] as Destination;
      const before = await storedDestinations(organization.id);
      // Before, a kind change carried the other kind's settings over and dropped the secrets.
      expect(await refusal(face, owner.token, organization.id, [{ id: stored.id, kind: "dropbox", label: "Box", settings: { folder: "/x" } }])).toEqual([
        { path: "externalStorage.0.secrets", message: "Secrets (external storage 1) must be sent when the kind changes." },
      ]);
      expect(await refusal(face, owner.token, organization.id, [{ id: stored.id, kind: "dropbox", label: "Box" }])).toEqual([
        { path: "externalStorage.0.settings", message: "Settings (external storage 1) must be sent when the kind changes." },
        { path: "externalStorage.0.secrets", message: "Secrets (external storage 1) must be sent when the kind changes." },
      ]);
      expect(await refusal(face, owner.token, organization.id, [{ id: "ext_unknown", kind: "s3", label: "Ghost" }])).toEqual([
        { path: "externalStorage.0.id", message: "ID (external storage 1) is not a destination of this organization." },
      ]);
      // One destination named twice would be stored as two with one id.
      const twice = { id: stored.id, kind: "s3", label: "Twice" };
      expect(await refusal(face, owner.token, organization.id, [twice, twice])).toEqual([
        { path: "externalStorage.1.id", message: "ID (external storage 2) names a destination already in the list." },
      ]);
      expect(await storedDestinations(organization.id)).toEqual(before);
    });
  }

  it("accepts a complete destination of each kind, over REST and tRPC, and a kind change that sends both", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const viaRest = await putStorage(owner.token, organization.id, [complete.s3, complete.dropbox, complete.google_drive]);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.externalStorage.map(({ kind, settings, configuredSecrets }: Destination) => ({ kind, settings, configuredSecrets }))).toEqual([
      { kind: "s3", settings: complete.s3.settings, configuredSecrets: ["accessKeyId", "secretAccessKey"] },
      { kind: "dropbox", settings: { folder: "/Telescope" }, configuredSecrets: ["appKey", "appSecret", "refreshToken"] },
      { kind: "google_drive", settings: { folderId: "f1" }, configuredSecrets: ["clientId", "clientSecret", "refreshToken"] },
    ]);
    const [s3] = viaRest.body.externalStorage as Destination[];

    const viaTrpc = await server.request("/trpc/organizations.update", {
      method: "POST",
      token: owner.token,
      json: {
        id: organization.id,
        update: {
          externalStorage: [
            { ...complete.dropbox, id: s3!.id, label: "Was a bucket" },
            destination("s3", { settings: { region: "r", bucket: "b", forcePathStyle: false } }),
          ],
        },
      },
    });
    expect(viaTrpc.status).toBe(200);
    const [changed, added] = (await trpcData<{ externalStorage: Destination[] }>(viaTrpc)).externalStorage;
    expect(changed).toEqual({
      id: s3!.id,
      kind: "dropbox",
      label: "Was a bucket",
      settings: { folder: "/Telescope" },
      configuredSecrets: ["appKey", "appSecret", "refreshToken"],
    });
    expect(added).toMatchObject({ kind: "s3", settings: { region: "r", bucket: "b", forcePathStyle: false } });
    const [sealed] = await storedDestinations(organization.id);
    expect(JSON.parse(box.open(sealed!.sealedSecrets!))).toEqual(complete.dropbox.secrets);
  });

  it("keeps an older, incomplete destination sent back by id as it is, while another is edited; sending its settings checks them", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const sealedLegacy = box.seal(JSON.stringify({ secretAccessKey: "legacy" }));
    const legacy = {
      id: "ext_legacy",
      kind: "s3",
      label: "Legacy",
      settings: { bucket: "old", color: "red" },
      sealedSecrets: sealedLegacy,
      secretKeys: ["secretAccessKey"],
    };
    const bare = { id: "ext_bare", kind: "google_drive", label: "Bare", settings: {}, sealedSecrets: null, secretKeys: [] };
    await sql`update organizations set doc = jsonb_set(doc, '{externalStorage}', ${sql.json([legacy, bare])}) where id = ${organization.id}`;

    const edited = await putStorage(owner.token, organization.id, [
      { id: legacy.id, kind: "s3", label: "Legacy (renamed)" },
      { id: bare.id, kind: "google_drive", label: "Bare" },
      complete.dropbox,
    ]);
    expect(edited.status).toBe(200);
    expect(edited.body.externalStorage.slice(0, 2)).toEqual([
      { id: legacy.id, kind: "s3", label: "Legacy (renamed)", settings: { bucket: "old", color: "red" }, configuredSecrets: ["secretAccessKey"] },
      { id: bare.id, kind: "google_drive", label: "Bare", settings: {}, configuredSecrets: [] },
    ]);
    expect((await storedDestinations(organization.id))[0]!.sealedSecrets).toBe(sealedLegacy);

    // Settings sent are checked whatever was stored; so are secrets.
    for (const face of ["rest", "trpc"] as const) {
      const prefix = face === "trpc" ? "update." : "";
      expect(await refusal(face, owner.token, organization.id, [{ id: legacy.id, kind: "s3", label: "Legacy", settings: { bucket: "old" } }])).toEqual([
        { path: `${prefix}externalStorage.0.settings.region`, message: "Region (external storage 1) is required." },
      ]);
      expect(await refusal(face, owner.token, organization.id, [{ id: legacy.id, kind: "s3", label: "Legacy", secrets: { secretAccessKey: "new" } }])).toEqual([
        { path: `${prefix}externalStorage.0.secrets.accessKeyId`, message: "Access key ID (external storage 1) is required." },
      ]);
    }
    const completed = await putStorage(owner.token, organization.id, [
      { id: legacy.id, kind: "s3", label: "Legacy", settings: { bucket: "old", region: "eu-west-1" }, secrets: complete.s3.secrets },
    ]);
    expect(completed.body.externalStorage).toEqual([
      { id: legacy.id, kind: "s3", label: "Legacy", settings: { bucket: "old", region: "eu-west-1" }, configuredSecrets: ["accessKeyId", "secretAccessKey"] },
    ]);
  });
});

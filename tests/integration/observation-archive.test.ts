import { createHash, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesOf, describeAuthSuite, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationCast } from "../support/observation-cast";
import type { TestServer } from "../support/test-server";
import { readZip } from "../support/zip-reading";

const ADMIN = { email: "observation-archive-admin@example.com", password: "observation archive admin password" };
let server: TestServer;
let owner: Account;
let member: Account;
let viewer: Account;
let stranger: Account;
let observatoryId: string;
let projectId: string;
let key: string;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
  ({ owner, member, viewer, stranger, observatoryId, projectId, key } = await observationCast(server, { observatory: "Archive scope", project: "Archive" }));
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

const target = { name: "Sirius", ra: 101.29, dec: -16.72, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };
const newObservation = async (name: string) =>
  (await must("/observations", { method: "POST", token: owner.token, json: { name, projectId, observatoryId, targets: [target] } }, 201)) as { id: string };
const put = async (observationId: string, filename: string, body: Buffer, query = "") => {
  const response = await server.request(`/observations/${observationId}/files?filename=${encodeURIComponent(filename)}${query}`, {
    method: "POST",
    token: key,
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string };
};
const archiveOf = (observationId: string, token = owner.token) => server.request(`/observations/${observationId}/files/archive`, { token });

describe("an observation's files as one ZIP", () => {
  it("holds every file under its name, stored, byte for byte, with the exact length announced", async () => {
    const observation = await newObservation("Orion, deep");
    const files: Array<[string, Buffer]> = [
      ["frame 1.fits", randomBytes(200_000)],
      ["frame 1.fits", randomBytes(3_000)],
      ["notes", Buffer.from("seeing 1.2 arcsec\n")],
      ["étoile ☆.fits", randomBytes(10)],
    ];
    for (const [name, bytes] of files) await put(observation.id, name, bytes);
    const response = await archiveOf(observation.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="Orion, deep.zip"; filename*=UTF-8''Orion%2C%20deep.zip`);
    const zip = await bytesOf(response);
    expect(Number(response.headers.get("content-length"))).toBe(zip.length);
    const entries = await readZip(zip);
    expect(entries.map((entry) => entry.name)).toEqual(["frame 1.fits", "frame 1 (2).fits", "notes", "étoile ☆.fits"]);
    entries.forEach((entry, index) => expect(entry.bytes!.equals(files[index]![1])).toBe(true));
    expect(entries.every((entry) => entry.compressionMethod === 0)).toBe(true);
  });

  it("leaves out files storage lost and names them in MISSING.txt", async () => {
    const observation = await newObservation("Lost one");
    const kept = await put(observation.id, "kept.fits", Buffer.from("kept bytes"));
    const lostBytes = randomBytes(64);
    const lost = await put(observation.id, "lost.fits", lostBytes);
    const files = (await must(`/observations/${observation.id}/files`, { token: owner.token }, 200)) as { items: Array<{ id: string }> };
    expect(files.items.map((file) => file.id)).toEqual([kept.id, lost.id]);
    const keys = [];
    for await (const page of server.server.runtime.deps.storage.list(`observations/${observation.id}/`)) keys.push(...page.map((object) => object.key));
    await server.server.runtime.deps.storage.delete(keys.find((objectKey) => objectKey.endsWith(lost.id))!);
    const entries = await readZip(await bytesOf(await archiveOf(observation.id)));
    expect(entries.map((entry) => entry.name)).toEqual(["kept.fits", "MISSING.txt"]);
    expect(entries[0]!.bytes!.toString()).toBe("kept bytes");
    const note = entries[1]!.bytes!.toString();
    expect(note).toContain(`lost.fits\t64 bytes\tsha256 ${createHash("sha256").update(lostBytes).digest("hex")}`);
    expect(note).not.toContain("kept.fits");
  });

  it("is an empty archive for an observation without files", async () => {
    const observation = await newObservation(`Nothing yet ${randomUUID().slice(0, 4)}`);
    const response = await archiveOf(observation.id);
    expect(response.status).toBe(200);
    expect(await readZip(await bytesOf(response))).toEqual([]);
  });

  it("is for the observation's readers only", async () => {
    const observation = await newObservation("Readers");
    await put(observation.id, "a.fits", Buffer.from("a"));
    for (const reader of [member, viewer]) expect((await readZip(await bytesOf(await archiveOf(observation.id, reader.token)))).length).toBe(1);
    await expectProblem(await archiveOf(observation.id, stranger.token), 404, "NOT_FOUND");
    await expectProblem(await archiveOf("obn_0000000000missing", owner.token), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/observations/${observation.id}/files/archive`), 401, "UNAUTHENTICATED");
  });
});

const suiteMembers = new Set<string>();
describeAuthSuite(() => server, {
  method: "GET",
  path: "/observations/{id}/files/archive",
  prepare: async (_server, account) => {
    const observation = (await must(
      "/observations",
      {
        method: "POST",
        token: owner.token,
        json: { name: "Suite", projectId, observatoryId, targets: [target] },
      },
      201,
    )) as { id: string };
    if (!suiteMembers.has(account.id))
      await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: account.email, role: "member" } }, 201);
    suiteMembers.add(account.id);
    return { path: `/observations/${observation.id}/files/archive` };
  },
  success: 200,
});

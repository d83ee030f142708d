import { createHash } from "node:crypto";
import { uploadObservationFile } from "@meridian/domain/observations";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectOneCreatedOneRefused, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { copyRow } from "../support/row-copies";
import { holdRows, queuedBehindHold } from "../support/table-hold";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "observation-files-admin@example.com", password: "observation files admin password" };
let server: TestServer;
beforeAll(async () => {
  // A small cap, so the too-large case needs no gigabytes.
  ({ server } = await startServerWithAdmin(ADMIN, { MAX_UPLOAD_BYTES: String(1024 * 1024) }));
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

const observationAndKey = (owner: Account) =>
  observationWithKey(must, {
    owner,
    project: "Files",
    observation: {
      name: "Files",
      targets: [{ name: "Sirius", ra: 101.29, dec: -16.72, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] }],
    },
  });

const objectsOf = async (observationId: string) => {
  const keys: string[] = [];
  for await (const page of server.server.runtime.deps.storage.list(`observations/${observationId}/`)) keys.push(...page.map((object) => object.key));
  return keys;
};
const upload = (observationId: string, key: string, query: string, body: BodyInit, contentType = "application/octet-stream") =>
  server.request(`/observations/${observationId}/files?${query}`, { method: "POST", token: key, headers: { "content-type": contentType }, body });

describe("observation file uploads", () => {
  it("keeps the content type, size and SHA-256, and links a preview to its file", async () => {
    const owner = await createAccount(server);
    const { key, observation } = await observationAndKey(owner);
    const image = (await (await upload(observation.id, key, "filename=frame%201.fits", Buffer.alloc(2000, 7), "application/fits")).json()) as { id: string };
    const response = await upload(observation.id, key, `filename=thumb.png&previewOf=${image.id}`, Buffer.from("png bytes"), "image/png");
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ kind: "preview", previewOfId: image.id, contentType: "image/png", sizeBytes: 9 });
    const files = (await must(`/observations/${observation.id}/files`, { token: owner.token }, 200)) as {
      items: Array<{ filename: string; sizeBytes: number; sha256: string }>;
    };
    expect(files.items[0]).toMatchObject({
      filename: "frame 1.fits",
      sizeBytes: 2000,
      sha256: createHash("sha256").update(Buffer.alloc(2000, 7)).digest("hex"),
    });
    const download = await server.request(`/files/${image.id}/download`, { token: owner.token });
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="frame 1.fits"; filename*=UTF-8''frame%201.fits`);
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.alloc(2000, 7))).toBe(true);
    expect(await objectsOf(observation.id)).toHaveLength(2);
  });

  it("refuses bad names, unknown previews, empty bodies and bodies over the cap, leaving neither a record nor an object", async () => {
    const owner = await createAccount(server);
    const { key, observation } = await observationAndKey(owner);
    const empty = await expectProblem(await upload(observation.id, key, "filename=empty.fits", Buffer.alloc(0)), 400, "VALIDATION_FAILED");
    expect(empty).toMatchObject({ detail: "The file is empty; nothing was stored", errors: [{ path: "body" }] });
    // Sent chunked, so its emptiness shows only when the body ends.
    const nothing = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    const chunked = await server.request(`/observations/${observation.id}/files?filename=chunked.fits`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/octet-stream" },
      body: nothing,
      duplex: "half",
    } as RequestInit);
    await expectProblem(chunked, 400, "VALIDATION_FAILED");
    await expectProblem(await upload(observation.id, key, "filename=..%2Fetc%2Fpasswd", "x"), 400, "VALIDATION_FAILED");
    // A folder's names, on disk and in the observation's ZIP: never a file's.
    for (const name of [".", ".."]) {
      const refused = await expectProblem(await upload(observation.id, key, `filename=${name}`, "x"), 400, "VALIDATION_FAILED");
      expect(refused.errors?.map((error) => error.path)).toEqual(["filename"]);
    }
    await expectProblem(await upload(observation.id, key, "filename=a.fits&previewOf=fil_missing", "x"), 404, "NOT_FOUND");
    await expectProblem(await upload(observation.id, key, "filename=big.fits", Buffer.alloc(1024 * 1024 + 1)), 413, "PAYLOAD_TOO_LARGE");
    expect(((await must(`/observations/${observation.id}/files`, { token: owner.token }, 200)) as { items: unknown[] }).items).toEqual([]);
    expect(await objectsOf(observation.id)).toEqual([]);
  });

  it("leaves nothing behind when the observatory's stream breaks halfway through an upload", async () => {
    const owner = await createAccount(server);
    const { observation } = await observationAndKey(owner);
    const observatoryId = ((await must(`/observations/${observation.id}`, { token: owner.token }, 200)) as { observatoryId: string }).observatoryId;
    // The body the HTTP layer hands over when the client's connection is cut: some bytes, then an error.
    // Over 8 MiB, so the store has begun a multipart upload when it breaks.
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 9 * 1024 * 1024) return controller.error(new Error("connection reset by peer"));
        sent += 1024 * 1024;
        controller.enqueue(new Uint8Array(1024 * 1024));
      },
    });
    const deps = { ...server.server.runtime.deps, env: { ...server.server.runtime.deps.env, MAX_UPLOAD_BYTES: 64 * 1024 * 1024 } };
    await expect(uploadObservationFile({ deps, observatoryId, observationId: observation.id, filename: "cut.fits", body: body as never })).rejects.toThrow();
    expect(sent).toBeGreaterThan(8 * 1024 * 1024);
    expect(((await must(`/observations/${observation.id}/files`, { token: owner.token }, 200)) as { items: unknown[] }).items).toEqual([]);
    expect(await objectsOf(observation.id)).toEqual([]);
    // The multipart upload it had begun was aborted: no parts stay behind.
    const uploads = [];
    for await (const page of deps.storage.listIncompleteUploads(`observations/${observation.id}/`)) uploads.push(...page);
    expect(uploads).toEqual([]);
  });

  it("marks a file whose bytes are gone from storage as missing, and its download answers 404 FILE_MISSING saying so", async () => {
    const owner = await createAccount(server);
    const { key, observation } = await observationAndKey(owner);
    const kept = (await (await upload(observation.id, key, "filename=kept.fits", Buffer.from("kept"))).json()) as { id: string };
    const lost = (await (await upload(observation.id, key, "filename=lost.fits", Buffer.from("lost"))).json()) as { id: string };
    const { storage } = server.server.runtime.deps;
    await storage.delete(`observations/${observation.id}/${lost.id}`);

    const files = (await must(`/observations/${observation.id}/files`, { token: owner.token }, 200)) as { items: Array<{ id: string; missing?: boolean }> };
    expect(files.items.map(({ id, missing }) => ({ id, missing }))).toEqual([
      { id: kept.id, missing: false },
      { id: lost.id, missing: true },
    ]);
    const problem = await expectProblem(await server.request(`/files/${lost.id}/download`, { token: owner.token }), 404, "FILE_MISSING");
    expect(problem.detail).toMatch(/lost\.fits are missing from storage/);
    expect((await server.request(`/files/${kept.id}/download`, { token: owner.token })).status).toBe(200);
    // Someone who may not read the observation learns nothing of the file.
    const stranger = await createAccount(server);
    await expectProblem(await server.request(`/files/${lost.id}/download`, { token: stranger.token }), 404, "NOT_FOUND");
  });
});

describe("how many files one observation holds", () => {
  const CAP = 10_000;
  const refusal = `The observation holds ${CAP} files, the most one may; nothing was stored`;
  const sql = () => server.server.runtime.deps.sql;
  const recordsOf = async (observationId: string) =>
    (await sql()<Array<{ count: number }>>`select count(*)::int as count from files where observation_id = ${observationId}`)[0]!.count;
  /** An observation with `count` file records: one uploaded, the others copies of its row (sharing its object). */
  const observationWithFiles = async (count: number) => {
    const { key, observation } = await observationAndKey(await createAccount(server));
    const first = (await (await upload(observation.id, key, "filename=first.fits", Buffer.from("first"))).json()) as { id: string };
    await copyRow(sql(), { table: "files", id: first.id, copies: count - 1 });
    return { key, observation };
  };

  it(`refuses the file past ${CAP} with 409 CONFLICT before taking its bytes, and stores nothing of it`, async () => {
    const { key, observation } = await observationWithFiles(CAP - 1);
    expect((await upload(observation.id, key, "filename=last.fits", Buffer.from("last"))).status).toBe(201);
    expect((await expectProblem(await upload(observation.id, key, "filename=beyond.fits", Buffer.from("beyond")), 409, "CONFLICT")).detail).toBe(refusal);
    // A body that never ends is answered all the same: the refusal comes before a byte of it is read.
    const endless = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new Uint8Array(1024)) });
    const unread = await server.request(`/observations/${observation.id}/files?filename=endless.fits`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/octet-stream" },
      body: endless,
      duplex: "half",
    } as RequestInit);
    expect((await expectProblem(unread, 409, "CONFLICT")).detail).toBe(refusal);
    expect(await recordsOf(observation.id)).toBe(CAP);
    expect(await objectsOf(observation.id)).toHaveLength(2);
  });

  it("lets exactly one of two uploads at the last place be stored; the other is 409 CONFLICT and leaves no object", async () => {
    const { key, observation } = await observationWithFiles(CAP - 1);
    // Both pass the count before their bytes, then record under the observation's row: the first waits at it, the second behind.
    const hold = await holdRows(server.databaseUrl, `select id from observations where id = '${observation.id}' for update`);
    const send = (name: string) => () => upload(observation.id, key, `filename=${name}`, Buffer.from(name));
    const answers = await queuedBehindHold({ hold, sql: sql(), first: send("one.fits"), second: send("two.fits") });
    await expectOneCreatedOneRefused(answers, refusal);
    expect(await recordsOf(observation.id)).toBe(CAP);
    expect(await objectsOf(observation.id)).toHaveLength(2);
  });
});

import { createHash, randomBytes } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { isAbortMultipartUpload, isCreateMultipartUpload, isUploadPart, startS3Proxy, type S3Proxy } from "../support/s3-proxy";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const MiB = 1024 * 1024;
const ADMIN = { email: "upload-framing-admin@example.com", password: "upload framing admin password" };
let proxy: S3Proxy;
let server: TestServer;
let owner: Account;
beforeAll(async () => {
  // Storage is reached through a proxy that sees every S3 request: which uploads began, which were aborted.
  proxy = await startS3Proxy(inject("s3Endpoint"));
  ({ server } = await startServerWithAdmin(ADMIN, { S3_ENDPOINT: proxy.url, UPLOAD_IDLE_TIMEOUT_MS: "3000" }));
  owner = await createAccount(server);
});
afterAll(async () => {
  await server?.stop();
  await proxy?.close();
});
const { must } = jsonApi(() => server);

async function framedObservation() {
  const vega = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };
  const { key, observation } = await observationWithKey(must, { owner, project: "Framing", observation: { name: "Framing", targets: [vega] } });
  return { key, observationId: observation.id };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whatever came after the first answer. */
  rest: string;
}

/**
 * An upload over a bare TCP connection, so the test controls exactly which bytes go and when.
 * `answer` resolves once the server has closed the connection, with the first answer parsed.
 */
async function rawUpload(path: string, headers: Record<string, string>, method = "POST") {
  const { hostname, port } = new URL(server.url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const received: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => received.push(chunk));
  const answer = new Promise<RawAnswer>((resolve) => {
    // A connection the server resets still ends here; what arrived before counts.
    socket.on("error", () => undefined);
    socket.once("close", () => {
      const all = Buffer.concat(received);
      const end = all.indexOf("\r\n\r\n");
      const [statusLine, ...lines] = all.subarray(0, end).toString("latin1").split("\r\n");
      const head = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      const length = Number(head["content-length"] ?? 0);
      resolve({
        status: Number(statusLine!.split(" ")[1]),
        headers: head,
        body: all.subarray(end + 4, end + 4 + length).toString("utf8"),
        rest: all.subarray(end + 4 + length).toString("latin1"),
      });
    });
  });
  const head = Object.entries({ host: `${hostname}:${port}`, ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n`);
  return { socket, answer };
}

const prefixOf = (observationId: string) => `/${server.env.S3_BUCKET}/observations/${observationId}/`;
const seen = (observationId: string, kind: (request: S3Proxy["requests"][number]) => boolean) =>
  proxy.requests.filter((request) => kind(request) && request.path.startsWith(prefixOf(observationId)));

/** No file record, no object and no incomplete multipart upload for the observation. */
async function expectNothingStored(observationId: string) {
  const { storage } = server.server.runtime.deps;
  expect(((await must(`/observations/${observationId}/files`, { token: owner.token }, 200)) as { items: unknown[] }).items).toEqual([]);
  const objects = [];
  for await (const page of storage.list(`observations/${observationId}/`)) objects.push(...page);
  expect(objects).toEqual([]);
  const uploads = [];
  for await (const page of storage.listIncompleteUploads(`observations/${observationId}/`)) uploads.push(...page);
  expect(uploads).toEqual([]);
}

describe("uploads whose bytes do not match their Content-Length, or whose client or store fails them", () => {
  it("answers 408 REQUEST_TIMEOUT to a client that sends less than it declared and falls silent, storing nothing, aborting the upload", async () => {
    const { key, observationId } = await framedObservation();
    const { socket, answer } = await rawUpload(`/observations/${observationId}/files?filename=stalled.fits`, {
      authorization: `Bearer ${key}`,
      "content-type": "application/octet-stream",
      "content-length": String(20 * MiB),
    });
    // Past one 8 MiB part, so the store has begun a multipart upload; then nothing more.
    socket.write(Buffer.alloc(9 * MiB, 5));
    const reply = await answer;
    expect(reply.status).toBe(408);
    expect(reply.headers.connection).toBe("close");
    expect(reply.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 408, code: "REQUEST_TIMEOUT" });
    expect(reply.rest).toBe("");
    expect(seen(observationId, isCreateMultipartUpload)).toHaveLength(1);
    // Aborted before the answer went out.
    expect(seen(observationId, isAbortMultipartUpload).map((request) => request.status)).toEqual([204]);
    await expectNothingStored(observationId);
  });

  it("stores the declared bytes of a body followed by more than it declared, and says so: one 201, then the connection closes", async () => {
    const { key, observationId } = await framedObservation();
    const declared = randomBytes(1000);
    const { socket, answer } = await rawUpload(`/observations/${observationId}/files?filename=longer.fits`, {
      authorization: `Bearer ${key}`,
      "content-type": "application/fits",
      "content-length": String(declared.length),
    });
    // The extra bytes arrive with the body: to HTTP they begin a next request, which they are not.
    socket.write(Buffer.concat([declared, Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a])]));
    // And more of them: each fails the parser again, and is ignored the same way.
    for (let index = 0; index < 20; index += 1) socket.write(randomBytes(64));
    const reply = await answer;
    expect(reply.status).toBe(201);
    expect(reply.headers.connection).toBe("close");
    const file = JSON.parse(reply.body) as { id: string; sizeBytes: number; sha256: string };
    expect(file).toMatchObject({ sizeBytes: 1000, sha256: createHash("sha256").update(declared).digest("hex") });
    // No second answer, so no client takes a 400 for this upload.
    expect(reply.rest).toBe("");
    const files = (await must(`/observations/${observationId}/files`, { token: owner.token }, 200)) as { items: Array<{ id: string }> };
    expect(files.items.map((item) => item.id)).toEqual([file.id]);
    const download = await server.request(`/files/${file.id}/download`, { token: owner.token });
    expect(Buffer.from(await download.arrayBuffer()).equals(declared)).toBe(true);
  });

  it("answers 400 and stores nothing when the body's own framing breaks halfway (a bad chunk), aborting the multipart upload", async () => {
    const { key, observationId } = await framedObservation();
    const { socket, answer } = await rawUpload(`/observations/${observationId}/files?filename=chunked.fits`, {
      authorization: `Bearer ${key}`,
      "content-type": "application/octet-stream",
      "transfer-encoding": "chunked",
    });
    socket.write(`${(9 * MiB).toString(16)}\r\n`);
    socket.write(Buffer.alloc(9 * MiB, 6));
    socket.write("\r\n");
    await until("the store to begin a multipart upload", async () => seen(observationId, isCreateMultipartUpload).length === 1);
    socket.write("not a chunk size\r\n");
    const reply = await answer;
    expect(reply.status).toBe(400);
    await until("the multipart upload to be aborted", async () => seen(observationId, isAbortMultipartUpload).some((request) => request.status === 204));
    await expectNothingStored(observationId);
  });

  it("answers 408 REQUEST_TIMEOUT to an avatar upload that stops short of its Content-Length, keeping the avatar as it was", async () => {
    const { socket, answer } = await rawUpload(
      "/api/v1/user/avatar",
      { authorization: `Bearer ${owner.token}`, "content-type": "image/png", "content-length": "1000" },
      "PUT",
    );
    socket.write(Buffer.alloc(10));
    const reply = await answer;
    expect(reply.status).toBe(408);
    expect(reply.headers.connection).toBe("close");
    expect(JSON.parse(reply.body)).toMatchObject({ status: 408, code: "REQUEST_TIMEOUT" });
    expect((await server.request(`/api/v1/users/${owner.id}/avatar`, { token: owner.token })).status).toBe(404);
  });

  it("answers 503 SERVICE_UNAVAILABLE and stores nothing when the store refuses a part, aborting the multipart upload", async () => {
    const { key, observationId } = await framedObservation();
    proxy.failWhen((request) => isUploadPart(request) && request.path.startsWith(prefixOf(observationId)));
    try {
      const response = await server.request(`/observations/${observationId}/files?filename=refused.fits`, {
        method: "POST",
        token: key,
        headers: { "content-type": "application/octet-stream" },
        body: Buffer.alloc(9 * MiB, 8),
      });
      await expectProblem(response, 503, "SERVICE_UNAVAILABLE");
    } finally {
      proxy.failWhen(null);
    }
    expect(seen(observationId, isAbortMultipartUpload).map((request) => request.status)).toEqual([204]);
    await expectNothingStored(observationId);
  });

  it("aborts the multipart upload and stores nothing when the client disconnects halfway", async () => {
    const { key, observationId } = await framedObservation();
    const { socket } = await rawUpload(`/observations/${observationId}/files?filename=cut.fits`, {
      authorization: `Bearer ${key}`,
      "content-type": "application/octet-stream",
      "content-length": String(20 * MiB),
    });
    socket.write(Buffer.alloc(9 * MiB, 7));
    await until("the store to begin a multipart upload", async () => seen(observationId, isCreateMultipartUpload).length === 1);
    socket.destroy();
    await until("the multipart upload to be aborted", async () => seen(observationId, isAbortMultipartUpload).some((request) => request.status === 204));
    await expectNothingStored(observationId);
  });
});

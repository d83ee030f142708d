import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { SignatureV4 } from "@smithy/signature-v4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedS3, type EmbeddedS3 } from "./embedded-s3";
import { createObjectStorage, type ObjectStorage } from "./object-storage";
import { Sha256 } from "./signed-requests";

const BUCKET = "guarded";
const KEY = "backups/bak_1/manifest.json";
let directory: string;
let store: EmbeddedS3 | undefined;
const clients: ObjectStorage[] = [];

const clientWith = (credentials: { accessKeyId: string; secretAccessKey: string }) => {
  const client = createObjectStorage({ endpoint: store!.endpoint, bucket: BUCKET, region: "us-east-1", forcePathStyle: true, ...credentials });
  clients.push(client);
  return client;
};
/** A GET of `signedPath` signed with the store's pair at `signingDate`, sent to `sentPath`. */
async function signedGet(options: { signedPath: string; sentPath?: string; signingDate?: Date }) {
  const url = new URL(store!.endpoint);
  const signer = new SignatureV4({
    credentials: { accessKeyId: store!.accessKeyId, secretAccessKey: store!.secretAccessKey },
    region: "us-east-1",
    service: "s3",
    uriEscapePath: false,
    sha256: Sha256,
  });
  const signed = await signer.sign(
    {
      method: "GET",
      protocol: "http:",
      hostname: url.hostname,
      port: Number(url.port),
      path: options.signedPath,
      headers: { host: url.host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
    },
    { signingDate: options.signingDate },
  );
  return fetch(`${store!.endpoint}${options.sentPath ?? options.signedPath}`, { headers: signed.headers });
}
const text = async (body: Readable) => Buffer.concat(await body.toArray()).toString("utf8");

beforeAll(async () => {
  directory = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-embedded-s3-"));
  store = await startEmbeddedS3({ directory });
  const owner = clientWith(store);
  await owner.ensureBucket();
  await owner.put(KEY, Buffer.from('{"secret":"password hashes"}'));
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await store?.stop();
  await fs.rm(directory, { recursive: true, force: true });
});

describe("the embedded S3-protocol store", () => {
  it("serves the key pair it was started with", async () => {
    const object = await clientWith(store!).get(KEY);
    expect(await text(object!.body)).toBe('{"secret":"password hashes"}');
    expect(store!.accessKeyId).toMatch(/^MERIDIAN[0-9A-F]{12}$/);
    expect(store!.secretAccessKey.length).toBeGreaterThanOrEqual(40);
  });

  it("serves keys whose path needs escaping: spaces, brackets, non-Latin letters", async () => {
    const owner = clientWith(store!);
    const key = "files/Ωmega frame (1)+[raw]!.fits";
    await owner.put(key, Buffer.from("escaped"));
    expect(await text((await owner.get(key))!.body)).toBe("escaped");
    const listed: string[] = [];
    for await (const page of owner.list("files/Ωmega ")) listed.push(...page.map((item) => item.key));
    expect(listed).toEqual([key]);
    await owner.delete(key);
    expect(await owner.head(key)).toBeUndefined();
  });

  it("refuses unsigned requests: no read, no listing, no form upload, no delete", async () => {
    const objectUrl = `${store!.endpoint}/${BUCKET}/${KEY}`;
    for (const response of [
      await fetch(objectUrl),
      await fetch(`${store!.endpoint}/${BUCKET}?list-type=2`),
      await fetch(objectUrl, { method: "DELETE" }),
      await fetch(objectUrl, { method: "PUT", body: "replaced" }),
    ]) {
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("<Code>AccessDenied</Code>");
    }
    // A browser form posted to the loopback port: the kind of request a web page may send anywhere.
    const form = new FormData();
    form.set("key", "backups/planted");
    form.set("file", new Blob(["planted"]));
    expect((await fetch(`${store!.endpoint}/${BUCKET}`, { method: "POST", body: form })).status).toBe(403);

    const owner = clientWith(store!);
    expect(await text((await owner.get(KEY))!.body)).toBe('{"secret":"password hashes"}');
    expect(await owner.head("backups/planted")).toBeUndefined();
  });

  it("refuses a signature that leaves out the host, or whose x-amz-date is not its credential's day", async () => {
    const url = `${store!.endpoint}/${BUCKET}/${KEY}`;
    const signature = "0".repeat(64);
    const credential = (day: string) => `AWS4-HMAC-SHA256 Credential=${store!.accessKeyId}/${day}/us-east-1/s3/aws4_request`;
    const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, "");
    for (const headers of [
      { authorization: `${credential(amzDate.slice(0, 8))}, SignedHeaders=x-amz-content-sha256;x-amz-date, Signature=${signature}`, "x-amz-date": amzDate },
      { authorization: `${credential("20000101")}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${signature}`, "x-amz-date": amzDate },
    ]) {
      const response = await fetch(url, { headers: { ...headers, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" } });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("<Code>AccessDenied</Code>");
    }
  });

  it("refuses s3rver's well-known pair and a wrong secret", async () => {
    await expect(clientWith({ accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }).get(KEY)).rejects.toMatchObject({
      name: "InvalidAccessKeyId",
    });
    await expect(clientWith({ accessKeyId: store!.accessKeyId, secretAccessKey: "guessed" }).get(KEY)).rejects.toMatchObject({
      name: "SignatureDoesNotMatch",
    });
  });

  it("refuses a signed request sent for another object, or sent again more than 15 minutes after it was signed", async () => {
    const objectPath = `/${BUCKET}/${KEY}`;
    expect((await signedGet({ signedPath: objectPath })).status).toBe(200);
    const elsewhere = await signedGet({ signedPath: `/${BUCKET}/public.txt`, sentPath: objectPath });
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
    const late = await signedGet({ signedPath: objectPath, signingDate: new Date(Date.now() - 16 * 60 * 1000) });
    expect(late.status).toBe(403);
    expect(await late.text()).toContain("<Code>RequestTimeTooSkewed</Code>");
  });

  it("started again with the same pair on the same port, serves the clients that had it", async () => {
    const client = clientWith(store!);
    const { accessKeyId, secretAccessKey } = store!;
    const port = Number(new URL(store!.endpoint).port);
    await store!.stop();
    store = undefined;
    store = await startEmbeddedS3({ directory, port, credentials: { accessKeyId, secretAccessKey } });
    expect(await text((await client.get(KEY))!.body)).toBe('{"secret":"password hashes"}');
  });
});

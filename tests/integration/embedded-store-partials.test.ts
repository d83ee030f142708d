import fs from "node:fs/promises";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { createLogger } from "@meridian/config";
import { addJob, inTransaction, removeAbandonedStoreWrites } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * Files the embedded store began writing and a killed process never renamed into place
 * (`<place>.<12 hex>.partial`), beside the server's and worker's writes in progress in the same
 * folder: the daily abort_stale_uploads job removes the first once untouched for an hour, never
 * the second.
 */
const HOUR = 3_600_000;
const PARTIAL = /\.[0-9a-f]{12}\.partial$/;
let server: TestServer;
let s3: S3Client;
let bucketDir: string;

beforeAll(async () => {
  // No S3_ENDPOINT: the server runs the embedded store in DATA_DIR/objects, and the worker with it.
  server = await startTestServer({ MERIDIAN_ROLE: "all", S3_ENDPOINT: "" });
  const { storage } = deps();
  bucketDir = path.join(server.dataDir, "objects", server.env.S3_BUCKET);
  s3 = new S3Client({
    endpoint: storage.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: storage.credentials,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
});
afterAll(async () => {
  s3?.destroy();
  await server?.stop();
});
const deps = () => server.server.runtime.deps;

/** The half-written files in the store, by path from the bucket's folder. */
async function partials(): Promise<string[]> {
  const entries = await fs.readdir(bucketDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && PARTIAL.test(entry.name))
    .map((entry) => path.relative(bucketDir, path.join(entry.parentPath, entry.name)));
}

/** What a process killed while writing `key` left: its bytes so far under the store's name for them, last written `ageMs` ago. */
async function abandoned(key: string, hex: string, ageMs: number) {
  const file = path.join(bucketDir, `${key}._S3rver_object.${hex}.partial`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, Buffer.alloc(1000, 7));
  const then = new Date(Date.now() - ageMs);
  await fs.utimes(file, then, then);
  return path.relative(bucketDir, file);
}

function loggingDeps() {
  const lines: Array<{ msg: string; removed?: number; bytes?: number }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
      done();
    },
  });
  return { deps: { ...deps(), logger: createLogger({ level: "info", destination: sink }) }, lines };
}

describe("half-written files of the embedded store", () => {
  it("are removed by the daily abort_stale_uploads job once untouched for an hour; a write in progress is kept and completes", async () => {
    await deps().storage.put("observations/obs_kept/fil_whole", Buffer.from("a whole object"));

    // A write in progress: a PutObject whose body has come in part, as a slow client's would.
    const body = new PassThrough();
    const writing = s3.send(new PutObjectCommand({ Bucket: server.env.S3_BUCKET, Key: "observations/obs_live/fil_slow", Body: body, ContentLength: 2000 }));
    // Awaited below; a failure before then must not surface as an unhandled rejection as well.
    writing.catch(() => undefined);
    body.write(Buffer.alloc(1000, 1));
    const [inProgress] = await until("the store to begin writing the object", async () => {
      const found = await partials();
      return found.length === 1 ? found : undefined;
    });
    expect(inProgress).toMatch(/^observations\/obs_live\/fil_slow\._S3rver_object\.[0-9a-f]{12}\.partial$/);

    await abandoned("observations/obs_killed/fil_a", "0123456789ab", HOUR + 60_000);
    const recent = await abandoned("observations/obs_killed/fil_b", "ba9876543210", HOUR - 60_000);
    const { deps: logging, lines } = loggingDeps();
    expect(await removeAbandonedStoreWrites({ deps: logging })).toEqual({ removed: 1, bytes: 1000 });
    expect(lines).toContainEqual(expect.objectContaining({ removed: 1, bytes: 1000, msg: expect.stringMatching(/half-written/) }));
    expect((await partials()).sort()).toEqual([inProgress, recent].sort());

    // The job as the worker runs it, once the other half-written file is an hour old too.
    const later = new Date(Date.now() - HOUR - 60_000);
    await fs.utimes(path.join(bucketDir, recent), later, later);
    await inTransaction(deps(), (t) => addJob({ t, name: "abort_stale_uploads", payload: {} }));
    const outcome = await until("the abort_stale_uploads job to end or fail", async () => {
      const [job] = await deps().db.execute<{ last_error: string | null }>(
        sql`select last_error from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
             where t.identifier = 'abort_stale_uploads'`,
      );
      return job ? (job.last_error ?? undefined) : "completed";
    });
    expect(outcome).toBe("completed");
    expect(await partials()).toEqual([inProgress]);

    body.end(Buffer.alloc(1000, 2));
    await writing;
    const stored = await s3.send(new GetObjectCommand({ Bucket: server.env.S3_BUCKET, Key: "observations/obs_live/fil_slow" }));
    expect(Buffer.from(await stored.Body!.transformToByteArray())).toEqual(Buffer.concat([Buffer.alloc(1000, 1), Buffer.alloc(1000, 2)]));
    const whole = await deps().storage.get("observations/obs_kept/fil_whole");
    expect((await whole!.body.toArray()).join("")).toBe("a whole object");
    expect(await partials()).toEqual([]);
  });
});

// The peer of the delivery benchmark: a bare @aws-sdk/lib-storage upload (its defaults: 5 MiB
// parts, 4 in flight) of the object Meridian delivered, read from the same source store and written
// to the same destination bucket, with nothing else (no database, no job, no size check). Prints
// one JSON line: {ms, bytes, peakRss, baselineRss}.
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";

const { SOURCE_ENDPOINT, SOURCE_BUCKET, SOURCE_KEY, TARGET_ENDPOINT, TARGET_BUCKET } = process.env;
const clientOf = (endpoint) =>
  new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
const source = clientOf(SOURCE_ENDPOINT);
const target = clientOf(TARGET_ENDPOINT);

const baselineRss = process.memoryUsage().rss;
let peakRss = baselineRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
const started = performance.now();
const object = await source.send(new GetObjectCommand({ Bucket: SOURCE_BUCKET, Key: SOURCE_KEY }));
await new Upload({ client: target, params: { Bucket: TARGET_BUCKET, Key: `peer/${Date.now()}`, Body: object.Body } }).done();
const ms = performance.now() - started;
clearInterval(sampler);
console.log(JSON.stringify({ ms, bytes: object.ContentLength, peakRss, baselineRss }));

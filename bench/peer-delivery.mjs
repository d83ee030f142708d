// The peer of the delivery benchmark: the object Meridian delivered, read from the same source
// store, copied with nothing else (no database, no job, no check): to S3 by a bare
// @aws-sdk/lib-storage upload (its defaults: 5 MiB parts, 4 in flight), or with PEER_KIND=dropbox
// by one streamed POST to the Dropbox stand-in's /2/files/upload. Prints one JSON line:
// {ms, bytes, peakRss, baselineRss}.
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";

const { SOURCE_ENDPOINT, SOURCE_BUCKET, SOURCE_KEY, TARGET_ENDPOINT, TARGET_BUCKET, PEER_KIND, DROPBOX_URL } = process.env;
// The stores' key pairs, as Meridian was given them.
const { SOURCE_ACCESS_KEY_ID, SOURCE_SECRET_ACCESS_KEY, TARGET_ACCESS_KEY_ID, TARGET_SECRET_ACCESS_KEY } = process.env;
const clientOf = (endpoint, accessKeyId, secretAccessKey) =>
  new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
const source = clientOf(SOURCE_ENDPOINT, SOURCE_ACCESS_KEY_ID, SOURCE_SECRET_ACCESS_KEY);
const target = clientOf(TARGET_ENDPOINT, TARGET_ACCESS_KEY_ID, TARGET_SECRET_ACCESS_KEY);

const baselineRss = process.memoryUsage().rss;
let peakRss = baselineRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
const started = performance.now();
const object = await source.send(new GetObjectCommand({ Bucket: SOURCE_BUCKET, Key: SOURCE_KEY }));
if (PEER_KIND === "dropbox") {
  const response = await fetch(`${DROPBOX_URL}/2/files/upload`, {
    method: "POST",
    headers: {
      authorization: "Bearer sink-token",
      "content-type": "application/octet-stream",
      "content-length": String(object.ContentLength),
      "dropbox-api-arg": JSON.stringify({ path: `/peer/${Date.now()}`, mode: "add", autorename: false, mute: true }),
    },
    body: object.Body.transformToWebStream(),
    duplex: "half",
  });
  if (!response.ok) throw new Error(`the sink answered ${response.status}`);
} else await new Upload({ client: target, params: { Bucket: TARGET_BUCKET, Key: `peer/${Date.now()}`, Body: object.Body } }).done();
const ms = performance.now() - started;
clearInterval(sampler);
console.log(JSON.stringify({ ms, bytes: object.ContentLength, peakRss, baselineRss }));

// The peer of the file-upload benchmark: a bare HTTP server that streams each request body into
// S3 with the same client and part size as Meridian and hashes it on the way, and nothing else
// (no authentication, no database). Prints "peer listening" when ready.
import { createHash } from "node:crypto";
import http from "node:http";
import { Transform } from "node:stream";
import { S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";

const { PORT, S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = process.env;
const client = new S3Client({
  endpoint: S3_ENDPOINT,
  region: "us-east-1",
  forcePathStyle: true,
  credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
  requestChecksumCalculation: "WHEN_REQUIRED",
  responseChecksumValidation: "WHEN_REQUIRED",
});
let counter = 0;
http
  .createServer(async (request, response) => {
    const hash = createHash("sha256");
    let size = 0;
    const measure = new Transform({
      transform(chunk, _encoding, callback) {
        size += chunk.length;
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    const upload = new Upload({
      client,
      params: { Bucket: S3_BUCKET, Key: `peer/${counter++}`, Body: request.pipe(measure) },
      queueSize: 2,
      partSize: 8 * 1024 * 1024,
    });
    await upload.done();
    response.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ sizeBytes: size, sha256: hash.digest("hex") }));
  })
  .listen(Number(PORT), "127.0.0.1", () => console.log("peer listening"));

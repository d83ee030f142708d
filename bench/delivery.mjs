// Delivery benchmark: a Meridian server process (worker inside, embedded PostgreSQL) copies a
// 1 GiB file an observatory uploaded to an organization's S3 destination, while its RSS is
// sampled; the peer is a bare @aws-sdk/lib-storage upload of the same object from the same source
// store to the same destination store, in a process of its own. Both S3-protocol stores run in
// this process. Goal: Meridian's delivery is at least 0.8x as fast as the peer, with flat memory.
//   node --import tsx bench/delivery.mjs [--mib 1024] [--runs 2]
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { startEmbeddedS3 } from "@meridian/db";
import os from "node:os";
import path from "node:path";
import {
  cleanEnv,
  freePort,
  installCleanupHooks,
  loadAverage,
  makeTempDir,
  median,
  mib,
  numberOption,
  readRss,
  removeTempDirs,
  sleep,
  spawnMeridian,
  spawnTracked,
  stopAll,
  waitForStatus,
  writeResult,
  callJson,
  generatedBody,
  MIB_CHUNK,
} from "./lib.mjs";

const sizeMib = numberOption("mib", 1024);
const runs = numberOption("runs", 2);
const kind = process.argv.includes("--dropbox") ? "dropbox" : "s3";
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
installCleanupHooks();

const s3Client = (store) =>
  new S3Client({
    endpoint: store.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
  });

try {
  const loadAtStart = loadAverage();
  const dataDir = await makeTempDir("delivery");
  const sourceStore = await startEmbeddedS3({ directory: path.join(dataDir, "source") });
  const targetStore = await startEmbeddedS3({ directory: path.join(dataDir, "target") });
  await s3Client(targetStore).send(new CreateBucketCommand({ Bucket: "archive" }));
  let sinkUrl = "";
  if (kind === "dropbox") {
    const port = await freePort();
    const sink = spawnTracked("dropbox sink", process.execPath, ["bench/dropbox-sink.mjs"], { env: cleanEnv({ PORT: String(port) }) });
    while (!sink.output.includes("sink listening")) {
      if (sink.exitInfo) throw new Error(`the sink exited:\n${sink.output}`);
      await sleep(20);
    }
    sinkUrl = `http://127.0.0.1:${port}`;
  }
  const admin = { email: "bench@example.com", password: "bench delivery password" };
  const server = spawnMeridian({
    dataDir,
    port: await freePort(),
    postgresPort: await freePort(),
    role: "all",
    extraEnv: {
      S3_ENDPOINT: sourceStore.endpoint,
      S3_BUCKET: "meridian",
      S3_ACCESS_KEY_ID: sourceStore.accessKeyId,
      S3_SECRET_ACCESS_KEY: sourceStore.secretAccessKey,
      S3_FORCE_PATH_STYLE: "true",
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      MAX_UPLOAD_BYTES: String(8 * 1024 ** 3),
      ...(sinkUrl ? { DROPBOX_API_URL: sinkUrl, DROPBOX_CONTENT_URL: sinkUrl } : {}),
    },
  });
  const base = server.baseUrl;
  await waitForStatus(server, `${base}/api/health/ready`);
  const { token } = await callJson(base, "/api/v1/auth/login", null, admin);
  const organization = await callJson(base, "/organizations", token, {
    name: "Bench club",
    shortName: "bench",
    type: "other",
    contactEmail: "club@example.com",
  });
  const destination =
    kind === "dropbox"
      ? { kind: "dropbox", label: "Archive", settings: { folder: "/Bench" }, secrets: { refreshToken: "refresh", appKey: "key", appSecret: "secret" } }
      : {
          kind: "s3",
          label: "Archive",
          settings: { endpoint: targetStore.endpoint, region: "us-east-1", bucket: "archive", prefix: "meridian/", forcePathStyle: true },
          secrets: { accessKeyId: targetStore.accessKeyId, secretAccessKey: targetStore.secretAccessKey },
        };
  const updated = await callJson(base, `/organizations/${organization.id}`, token, { externalStorage: [destination] }, "PUT");
  const destinationId = updated.externalStorage[0].id;
  const project = await callJson(base, "/projects", token, { name: "Delivery bench", organizationId: organization.id });
  const observatory = await callJson(base, "/observatories", token, { name: "Delivery bench" });
  const { key } = await callJson(base, `/observatories/${observatory.id}/api-keys`, token, { name: "bench" });
  const observation = await callJson(base, "/observations", token, {
    name: "Big frame",
    projectId: project.id,
    observatoryId: observatory.id,
    storageDestinationId: destinationId,
    targets: [{ name: "M 1", ra: 83.63, dec: 22.01, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] }],
  });

  const upload = async (filename, data) => {
    const response = await fetch(`${base}/observations/${observation.id}/files?filename=${filename}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/fits" },
      body: data,
      duplex: "half",
    });
    if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  /** Waits for the file's delivery to end, sampling the server's RSS; timed from `since` (the upload's 201, when the job is queued). */
  const delivered = async (fileId, since) => {
    const baseline = readRss(server.pid);
    let peak = baseline;
    for (;;) {
      peak = Math.max(peak, readRss(server.pid) ?? 0);
      const files = await callJson(base, `/observations/${observation.id}/files`, token);
      const delivery = files.items.find((file) => file.id === fileId)?.deliveries[0];
      if (delivery?.status === "failed") throw new Error(`delivery failed: ${delivery.error}`);
      if (delivery?.status === "delivered") return { ms: performance.now() - since, baseline, peak, remotePath: delivery.remotePath };
      await sleep(50);
    }
  };
  // A small file first, so both sides have loaded their code.
  const warm = await upload("warm.fits", MIB_CHUNK);
  await delivered(warm.id, performance.now());

  const meridianRuns = [];
  const peerRuns = [];
  for (let run = 1; run <= runs; run += 1) {
    const file = await upload(`big-${run}.fits`, generatedBody(sizeMib));
    const since = performance.now();
    meridianRuns.push(await delivered(file.id, since));

    const listed = await s3Client(sourceStore).send(new ListObjectsV2Command({ Bucket: "meridian" }));
    const source = listed.Contents.filter((item) => item.Size === sizeMib * 1024 * 1024).at(-1);
    const peer = spawnTracked("peer", process.execPath, ["bench/peer-delivery.mjs"], {
      env: cleanEnv({
        SOURCE_ENDPOINT: sourceStore.endpoint,
        SOURCE_BUCKET: "meridian",
        SOURCE_KEY: source.Key,
        SOURCE_ACCESS_KEY_ID: sourceStore.accessKeyId,
        SOURCE_SECRET_ACCESS_KEY: sourceStore.secretAccessKey,
        TARGET_ENDPOINT: targetStore.endpoint,
        TARGET_ACCESS_KEY_ID: targetStore.accessKeyId,
        TARGET_SECRET_ACCESS_KEY: targetStore.secretAccessKey,
        TARGET_BUCKET: "archive",
        PEER_KIND: kind,
        DROPBOX_URL: sinkUrl,
      }),
    });
    while (!peer.exitInfo) await sleep(50);
    const line = peer.output.split("\n").find((text) => text.startsWith("{"));
    if (!line) throw new Error(`peer failed:\n${peer.output}`);
    const result = JSON.parse(line);
    if (result.bytes !== sizeMib * 1024 * 1024) throw new Error(`peer copied ${result.bytes} bytes`);
    peerRuns.push({ ms: result.ms, baseline: result.baselineRss, peak: result.peakRss });
  }
  await Promise.all([sourceStore.stop(), targetStore.stop()]);

  const rate = (ms) => `${((sizeMib / ms) * 1000).toFixed(0)} MiB/s`;
  const meridianMs = median(meridianRuns.map((run) => run.ms));
  const peerMs = median(peerRuns.map((run) => run.ms));
  const ratio = peerMs / meridianMs;
  const growth = Math.max(...meridianRuns.map((run) => run.peak - run.baseline));
  const peerGrowth = Math.max(...peerRuns.map((run) => run.peak - run.baseline));
  const row = (label, list) =>
    `| ${label} | ${list.map((run) => `${(run.ms / 1000).toFixed(1)} s`).join(", ")} | ${rate(median(list.map((run) => run.ms)))} | ` +
    `${mib(Math.max(...list.map((run) => run.peak - run.baseline)))} |`;
  const labels =
    kind === "dropbox"
      ? {
          title: "# Delivery to a Dropbox destination",
          what: "copied to a Dropbox stand-in that counts and drops the bytes (its own process)",
          peer: "peer: one bare streamed POST to `/2/files/upload` of the same object, own process",
          meridian: "Meridian: the `deliver_file` job (an upload session of 8 MiB chunks, one at a time), from the upload's 201 to `delivered`",
        }
      : {
          title: "# Delivery to an S3 destination",
          what: "copied to a second S3-protocol store (both stores in the benchmark's process)",
          peer: "peer: bare `@aws-sdk/lib-storage` Upload (defaults: 5 MiB parts, 4 in flight), own process",
          meridian: "Meridian: the `deliver_file` job in the server process (8 MiB parts, 4 in flight, then a HEAD), from the upload's 201 to `delivered`",
        };
  const flag = kind === "dropbox" ? " --dropbox" : "";
  const text = [
    labels.title,
    "",
    `\`node --import tsx bench/delivery.mjs --mib ${sizeMib} --runs ${runs}${flag}\`, run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model?.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${loadAverage()}).`,
    `One ${sizeMib} MiB file, stored by the server, ${labels.what}.`,
    "",
    "| Copier | Time per run | Rate (median) | RSS growth (peak) |",
    "|---|---:|---:|---:|",
    row(labels.peer, peerRuns),
    row(labels.meridian, meridianRuns),
    "",
    `- Goal: at least 0.8x the peer's speed: **${ratio >= 0.8 ? "met" : "missed"}** (${ratio.toFixed(2)}x).`,
    `- Memory: the server's RSS grew by at most ${mib(growth)} while ${sizeMib} MiB passed through (the peer's: ${mib(peerGrowth)}).`,
    "",
  ].join("\n");
  await writeResult(kind === "dropbox" ? "delivery-dropbox.md" : "delivery.md", text);
  console.log(text);
} finally {
  await stopAll();
  await removeTempDirs();
}

// File upload benchmark: an observatory uploads a 1 GiB file to a real Meridian server process
// (embedded PostgreSQL, S3 in this process so the server's memory is its own), while the server's
// RSS is sampled; the peer is a bare HTTP server streaming the same body into the same S3 with the
// same client and part size. Goal: the server's RSS stays flat (the upload is never held whole).
//   node --import tsx bench/file-upload.mjs [--mib 1024]
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbeddedS3 } from "@meridian/db";
import {
  freePort,
  installCleanupHooks,
  loadAverage,
  makeTempDir,
  mib,
  readRss,
  removeTempDirs,
  resultsDir,
  sleep,
  spawnMeridian,
  spawnTracked,
  stopAll,
  waitForStatus,
  cleanEnv,
  callJson,
  generatedBody,
  MIB_CHUNK,
} from "./lib.mjs";

const sizeMib = Number(process.argv[process.argv.indexOf("--mib") + 1] || 1024) || 1024;
installCleanupHooks();

/** Sends the body while sampling the receiver's RSS every 50 ms; the baseline is taken just before. */
async function measuredUpload(pid, url, headers) {
  const baseline = readRss(pid);
  let peak = baseline;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, readRss(pid) ?? 0);
      await sleep(50);
    }
  })();
  const started = performance.now();
  const response = await fetch(url, { method: "POST", headers, body: generatedBody(sizeMib), duplex: "half" });
  const answer = await response.json();
  const ms = performance.now() - started;
  sampling = false;
  await sampler;
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(answer)}`);
  if (answer.sizeBytes !== sizeMib * 1024 * 1024) throw new Error(`stored ${answer.sizeBytes} bytes`);
  return { baseline, peak, ms };
}

try {
  const loadAtStart = loadAverage();
  const dataDir = await makeTempDir("upload");
  const s3 = await startEmbeddedS3({ directory: path.join(dataDir, "objects") });
  const s3Env = {
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: "bench-uploads",
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: "true",
  };
  const admin = { email: "bench@example.com", password: "bench upload password" };
  const server = spawnMeridian({
    dataDir,
    port: await freePort(),
    postgresPort: await freePort(),
    role: "server",
    extraEnv: { ...s3Env, ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, MAX_UPLOAD_BYTES: String(8 * 1024 ** 3) },
  });
  await waitForStatus(server, `${server.baseUrl}/api/health/ready`);
  const { token } = await callJson(server.baseUrl, "/api/v1/auth/login", null, admin);
  const observatory = await callJson(server.baseUrl, "/observatories", token, { name: "Upload bench" });
  const project = await callJson(server.baseUrl, "/projects", token, { name: "Upload bench" });
  const { key } = await callJson(server.baseUrl, `/observatories/${observatory.id}/api-keys`, token, { name: "bench" });
  const observation = await callJson(server.baseUrl, "/observations", token, {
    name: "Big frame",
    projectId: project.id,
    observatoryId: observatory.id,
    targets: [{ name: "M 1", ra: 83.63, dec: 22.01, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] }],
  });
  // A small upload first, so both sides have loaded their code before the baseline.
  const warmUrl = `${server.baseUrl}/observations/${observation.id}/files?filename=warm.fits`;
  await fetch(warmUrl, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: MIB_CHUNK });
  const meridian = await measuredUpload(server.pid, `${server.baseUrl}/observations/${observation.id}/files?filename=big.fits`, {
    authorization: `Bearer ${key}`,
    "content-type": "application/fits",
  });

  const peerPort = await freePort();
  const peer = spawnTracked("peer", process.execPath, ["bench/peer-upload.mjs"], { env: cleanEnv({ PORT: String(peerPort), ...s3Env }) });
  while (!peer.output.includes("peer listening")) {
    if (peer.exitInfo) throw new Error(`peer exited:\n${peer.output}`);
    await sleep(20);
  }
  await fetch(`http://127.0.0.1:${peerPort}/`, { method: "POST", body: MIB_CHUNK });
  const bare = await measuredUpload(peer.pid, `http://127.0.0.1:${peerPort}/`, { "content-type": "application/fits" });
  await s3.stop();

  const rate = (run) => `${((sizeMib / run.ms) * 1000).toFixed(0)} MiB/s`;
  const row = (label, run) =>
    `| ${label} | ${(run.ms / 1000).toFixed(1)} s | ${rate(run)} | ${mib(run.baseline)} | ${mib(run.peak)} | ${mib(run.peak - run.baseline)} |`;
  const growth = meridian.peak - meridian.baseline;
  const text = [
    "# File upload",
    "",
    `\`node --import tsx bench/file-upload.mjs --mib ${sizeMib}\`, run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model?.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${loadAverage()}).`,
    `One ${sizeMib} MiB file, sent in 1 MiB chunks of unknown total length; the receiver's RSS sampled every 50 ms.`,
    "",
    "| Receiver | Time | Rate | RSS before | RSS peak | Growth |",
    "|---|---:|---:|---:|---:|---:|",
    row("peer: bare HTTP server streaming into S3 (same client, 8 MiB parts, 2 in flight)", bare),
    row("Meridian: `POST /observations/{id}/files` with an observatory key", meridian),
    "",
    `- Goal: the server's RSS stays flat while ${sizeMib} MiB pass through: **${growth < 128 * 1024 * 1024 ? "met" : "missed"}** ` +
      `(growth ${mib(growth)}, the peer's ${mib(bare.peak - bare.baseline)}; the multipart upload holds at most two 8 MiB parts and one being filled).`,
    "",
  ].join("\n");
  await fsp.mkdir(resultsDir, { recursive: true });
  await fsp.writeFile(path.join(resultsDir, "file-upload.md"), text);
  console.log(text);
} finally {
  await stopAll();
  await removeTempDirs();
}

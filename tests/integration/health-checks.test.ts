import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startEmbeddedS3, type EmbeddedS3 } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { signupUser, startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

interface Health {
  status: "ok" | "degraded" | "down";
  version: string;
  uptimeSeconds: number;
  checks: {
    database: { status: string; latencyMs: number };
    objectStorage: { status: string; latencyMs: number };
    websocket: { status: string; connections: number };
    worker: { status: string; queuedJobs: number };
  };
}

async function health(server: TestServer, pathname = "/api/health") {
  const response = await server.request(pathname);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as Health };
}

/**
 * Health once its overall status is `expected`. Each check is time-boxed to a second, and on a
 * loaded machine one answer can miss it (503 "down"), so a test waits for the state it expects.
 */
const healthWhen = (server: TestServer, expected: Health["status"], pathname = "/api/health") =>
  until(`${pathname} to be ${expected}`, async () => {
    const result = await health(server, pathname);
    return result.body.status === expected ? result : undefined;
  });

const servers: TestServer[] = [];
async function server(overrides: Record<string, string> = {}) {
  const started = await startTestServer(overrides);
  servers.push(started);
  return started;
}

afterAll(async () => {
  for (const started of servers) await started.stop();
});

describe("health with server and worker in one process", () => {
  let full: TestServer;
  beforeAll(async () => {
    full = await server();
  });

  it("/api/health and /api/health/ready answer 200 with every check ok", async () => {
    for (const pathname of ["/api/health", "/api/health/ready"]) {
      const { status, body } = await healthWhen(full, "ok", pathname);
      expect(status).toBe(200);
      expect(body.checks.database.status).toBe("ok");
      expect(body.checks.objectStorage.status).toBe("ok");
      expect(body.checks.websocket.status).toBe("ok");
      expect(body.checks.worker.status).toBe("ok");
      expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(Number.isInteger(body.uptimeSeconds) && body.uptimeSeconds >= 0).toBe(true);
      expect(body.checks.database.latencyMs).toBeGreaterThanOrEqual(0);
      expect(body.checks.worker.queuedJobs).toBeGreaterThanOrEqual(0);
    }
  });

  it("/api/health/live answers 200", async () => {
    const response = await full.request("/api/health/live");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("needs no credentials and reports WebSocket connections", async () => {
    const user = await signupUser(full);
    const ws = new WebSocket(`${full.url.replace(/^http/, "ws")}/ws`, { headers: { authorization: `Bearer ${user.token}` } });
    await new Promise<void>((resolve, reject) => {
      ws.once("message", () => resolve());
      ws.once("error", reject);
    });
    try {
      const { body } = await health(full);
      expect(body.checks.websocket).toEqual({ status: "ok", connections: 1 });
    } finally {
      await new Promise<void>((resolve) => {
        ws.once("close", () => resolve());
        ws.close();
      });
    }
    await until("the connection count to drop", async () => ((await health(full)).body.checks.websocket.connections === 0 ? true : undefined), {
      timeoutMs: 15_000,
    });
  });

  it("reports the worker down once it stops, as degraded and still 200", async () => {
    const own = await server();
    expect((await healthWhen(own, "ok")).body.checks.worker.status).toBe("ok");
    await own.server.worker!.stop();
    const { status, body } = await healthWhen(own, "degraded");
    expect(status).toBe(200);
    expect(body.checks.worker.status).toBe("down");
  });
});

describe("health with MERIDIAN_ROLE=server and no worker anywhere", () => {
  it("is degraded and still 200 on /api/health and /api/health/ready", async () => {
    const httpOnly = await server({ MERIDIAN_ROLE: "server" });
    expect(httpOnly.server.worker).toBeUndefined();
    for (const pathname of ["/api/health", "/api/health/ready"]) {
      const { status, body } = await healthWhen(httpOnly, "degraded", pathname);
      expect(status).toBe(200);
      expect(body.checks.worker.status).toBe("down");
      expect(body.checks.database.status).toBe("ok");
      expect(body.checks.objectStorage.status).toBe("ok");
      expect(body.checks.websocket.status).toBe("ok");
    }
  });
});

describe("health when object storage is unreachable", () => {
  /** A server's settings for a store of this file's own: it answers only requests signed with its key pair. */
  const onStore = (store: EmbeddedS3) => ({
    S3_ENDPOINT: store.endpoint,
    S3_ACCESS_KEY_ID: store.accessKeyId,
    S3_SECRET_ACCESS_KEY: store.secretAccessKey,
  });
  let s3: EmbeddedS3 | undefined;
  let s3Dir: string | undefined;
  afterAll(async () => {
    await s3?.stop();
    if (s3Dir) await fs.rm(s3Dir, { recursive: true, force: true });
  });

  it("answers 503 with objectStorage down after the S3 server stops, and recovers when it is back", async () => {
    s3Dir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-health-s3-"));
    s3 = await startEmbeddedS3({ directory: s3Dir });
    const port = Number(new URL(s3.endpoint).port);
    const credentials = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
    const own = await server(onStore(s3));
    expect((await healthWhen(own, "ok")).status).toBe(200);

    await s3.stop();
    s3 = undefined;
    for (const pathname of ["/api/health", "/api/health/ready"]) {
      const { status, body } = await health(own, pathname);
      expect(status).toBe(503);
      expect(body.status).toBe("down");
      expect(body.checks.objectStorage.status).toBe("down");
      expect(body.checks.database.status).toBe("ok");
      expect(body.checks.websocket.status).toBe("ok");
    }
    // Liveness has no dependency checks.
    expect((await own.request("/api/health/live")).status).toBe(200);

    s3 = await startEmbeddedS3({ directory: s3Dir, port, credentials });
    const recovered = await until(
      "health to recover",
      async () => {
        const result = await health(own);
        return result.status === 200 ? result : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(recovered.body.checks.objectStorage.status).toBe("ok");
  });

  it("answers 503 when the S3 endpoint accepts connections but never replies, and drops those requests", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-health-s3-"));
    // The server needs a working S3 to start (it ensures its bucket); then the endpoint goes dark.
    const ownS3 = await startEmbeddedS3({ directory: dir });
    const port = Number(new URL(ownS3.endpoint).port);
    const own = await server(onStore(ownS3));
    await ownS3.stop();
    // A black hole on the same port: TCP connects, no HTTP answer ever comes.
    const open = new Set<net.Socket>();
    const blackHole = net.createServer((socket) => {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => undefined);
      socket.resume(); // read (and ignore) requests, so a client closing the connection is noticed
    });
    await new Promise<void>((resolve) => blackHole.listen(port, "127.0.0.1", resolve));
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const { status, body } = await health(own);
        expect(status).toBe(503);
        expect(body.checks.objectStorage.status).toBe("down");
        expect(body.checks.database.status).toBe("ok");
      }
      expect(open.size).toBeGreaterThan(0);
      // A health probe gives up on its request instead of leaving it hanging on a socket.
      await until("the abandoned S3 requests to be closed", async () => (open.size === 0 ? true : undefined), { timeoutMs: 10_000 });
    } finally {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => blackHole.close(() => resolve()));
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

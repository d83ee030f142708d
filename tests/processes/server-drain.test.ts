import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, images, roomyLimits } from "../support/auth-suite";
import { freePort } from "../../scripts/free-port";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { createTestDatabase } from "../support/test-database";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { runStoreEnv } from "../support/run-store";

let server: TestServer;
let stopped = false;
beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server" });
});
afterAll(async () => {
  if (!stopped) await server?.stop();
});

describe("stopping while a request is in flight", () => {
  it("answers it, tells the client to close the connection, and only then stops", async () => {
    const user = await createAccount(server);
    const body = images.png;
    const { port } = new URL(server.url);
    // A request whose body arrives in two parts: it is in flight while the server stops.
    let stopping: Promise<void> | undefined;
    const answered = new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
      const request = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "PUT",
          path: "/api/v1/user/avatar",
          headers: { authorization: `Bearer ${user.token}`, "content-type": "image/png", "content-length": body.length },
        },
        (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }));
        },
      );
      request.on("error", reject);
      const connected = new Promise<void>((resolve) => request.once("socket", (socket) => socket.once("connect", () => resolve())));
      request.write(body.subarray(0, 10));
      void stopWhenInFlight(connected).then(() => request.end(body.subarray(10)), reject);
    });
    async function stopWhenInFlight(connected: Promise<void>) {
      // Stopping closes the listening socket at once: the request must have been accepted first.
      // Connections are accepted in order, so once a later one is answered, ours was accepted.
      await connected;
      expect((await fetch(`${server.url}/api/health/live`)).status).toBe(200);
      stopping = server.stop();
      stopped = true;
      // Once new connections are refused, the server is draining.
      await until("the server to stop accepting connections", async () => {
        try {
          await fetch(`${server.url}/api/health/live`);
          return false;
        } catch {
          return true;
        }
      });
    }
    const response = await answered;
    expect(response.status).toBe(200);
    expect(response.connection).toBe("close");
    // The pools closed only after the answer: the avatar upload's database write succeeded.
    expect(JSON.parse(response.text)).toMatchObject({ contentType: "image/png" });
    await stopping;
  });
});

type Outcome = { kind: "answer"; path: string; status: number; body: { status?: string; reason?: string } } | { kind: "error"; code: string };

/** One GET over `agent`: the complete answer, or the error code of a request that got none. */
function get(port: number, agent: http.Agent, pathname: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path: pathname, agent }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () =>
        resolve({ kind: "answer", path: pathname, status: response.statusCode ?? 0, body: JSON.parse(text) as { status?: string; reason?: string } }),
      );
      response.on("error", (error: NodeJS.ErrnoException) => resolve({ kind: "error", code: error.code ?? error.message }));
    });
    request.on("error", (error: NodeJS.ErrnoException) => resolve({ kind: "error", code: error.code ?? error.message }));
  });
}

describe("SIGTERM under steady keep-alive load", () => {
  let proc: NodeProcess | undefined;
  let dataDir: string | undefined;
  afterAll(async () => {
    if (proc && isRunning(proc)) await terminate(proc);
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("turns readiness 503 at once, answers every request it accepted, refuses the rest cleanly, and exits 0", async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-drain-"));
    const port = await freePort();
    proc = spawnEntry("server", {
      MERIDIAN_ROLE: "server",
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: (await createTestDatabase()).url,
      ...runStoreEnv("drain-test"),
      SECRETS_KEY: "test secrets key shared by every process of this run",
      WEB_DIST_DIR: path.join(dataDir, "no-web"),
    });
    await waitForOutput(proc, /listening on/);

    // Four clients, each sending its next request on its kept-alive connection as soon as the last
    // one is answered: two ask for readiness only, two alternate liveness and health.
    const outcomes: Outcome[][] = [[], [], [], []];
    const clients = outcomes.map(async (mine, index) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const paths = index < 2 ? ["/api/health/ready", "/api/health/ready"] : ["/api/health/live", "/api/health"];
      for (let sent = 0; ; sent += 1) {
        const outcome = await get(port, agent, paths[sent % 2]!);
        mine.push(outcome);
        if (outcome.kind === "error") break;
      }
      agent.destroy();
    });
    await until("every client to be answered over a kept-alive connection", async () =>
      outcomes.every((mine) => mine.filter((outcome) => outcome.kind === "answer").length >= 4),
    );

    const exited = terminate(proc);
    await Promise.all(clients);
    expect(await exited).toEqual({ code: 0, signal: null });

    const all = outcomes.flat();
    // A request either got its whole answer or found the port closed: none was reset or cut off.
    expect(all.filter((outcome) => outcome.kind === "error").map((outcome) => (outcome as { code: string }).code)).toEqual([
      "ECONNREFUSED",
      "ECONNREFUSED",
      "ECONNREFUSED",
      "ECONNREFUSED",
    ]);
    const answers = all.filter((outcome) => outcome.kind === "answer");
    expect(answers.filter((answer) => answer.status >= 500 && answer.path.endsWith("/live"))).toEqual([]);
    // Before the process went away, readiness said so, with the reason.
    expect(answers.filter((answer) => answer.path.endsWith("/ready") && answer.status === 503)).toContainEqual(
      expect.objectContaining({ body: expect.objectContaining({ status: "down", reason: "draining" }) }),
    );
    expect(answers.filter((answer) => answer.status === 200 && answer.body.reason === "draining")).toEqual([]);
  }, 120_000);
});

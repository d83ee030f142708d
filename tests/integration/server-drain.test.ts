import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, images, roomyLimits } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

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
        { host: "127.0.0.1", port, method: "PUT", path: "/api/v1/user/avatar", headers: { authorization: `Bearer ${user.token}`, "content-type": "image/png", "content-length": body.length } },
        (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }));
        },
      );
      request.on("error", reject);
      request.write(body.subarray(0, 10));
      void stopWhenInFlight().then(() => request.end(body.subarray(10)), reject);
    });
    async function stopWhenInFlight() {
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

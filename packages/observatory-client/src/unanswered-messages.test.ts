import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { ObservatoryClient } from "./client";

/**
 * A peer that speaks the plugin protocol as the server does, answering each connection's hello as
 * told ("deaf after hello": acknowledged, and nothing after it answered): so the client's own
 * handling of a refused or unanswered message can be seen from both ends.
 */
type HelloAnswer = "ack" | "refuse for now" | "refuse for good" | "silence" | "drop" | "deaf after hello";

async function peer(answers: HelloAnswer[]) {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => server.once("listening", resolve));
  const sockets: Array<{ ws: WebSocket; closed: Promise<void> }> = [];
  server.on("connection", (ws) => {
    const closed = new Promise<void>((resolve) => ws.once("close", () => resolve()));
    sockets.push({ ws, closed });
    const answer = answers.shift() ?? "ack";
    ws.on("message", (raw) => {
      const message = JSON.parse(raw.toString()) as { type: string; id: string };
      if (message.type !== "hello") return answer === "deaf after hello" ? undefined : ws.send(JSON.stringify({ type: "ack", id: message.id }));
      // The server gone in the middle of the hello: the socket closes with the hello unanswered.
      if (answer === "drop") ws.terminate();
      if (answer === "ack" || answer === "deaf after hello") ws.send(JSON.stringify({ type: "ack", id: message.id }));
      if (answer === "refuse for now")
        ws.send(JSON.stringify({ type: "error", id: message.id, code: "SERVICE_UNAVAILABLE", message: "no database connection", retryAfter: 3 }));
      if (answer === "refuse for good")
        ws.send(JSON.stringify({ type: "error", id: message.id, code: "VALIDATION_FAILED", message: "systemInfo is too large" }));
    });
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, sockets, close: () => new Promise((resolve) => server.close(resolve)) };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setUp(answers: HelloAnswer[], options: { reconnect?: boolean; helloTimeoutSeconds?: number; answerTimeoutSeconds?: number } = {}) {
  const server = await peer(answers);
  const lines: string[] = [];
  const watchers: Array<{ prefix: string; resolve: () => void }> = [];
  const log = (line: string) => {
    lines.push(line);
    for (const watcher of watchers.filter(({ prefix }) => line.startsWith(prefix))) watcher.resolve();
  };
  /** Resolves once the client has logged a line starting with `prefix`. */
  const logged = (prefix: string) =>
    lines.some((line) => line.startsWith(prefix)) ? Promise.resolve() : new Promise<void>((resolve) => watchers.push({ prefix, resolve }));
  const client = new ObservatoryClient({ url: server.url, key: "mok_test", pluginVersion: "3.8.0.0", log, ...options });
  cleanups.push(
    () => client.close(),
    () => server.close(),
  );
  return { server, client, lines, logged };
}

describe("a hello that is not acknowledged", () => {
  it("rejects a caller's connect with the server's code and drops the socket, without reconnecting on its own", async () => {
    const { server, client } = await setUp(["refuse for good"]);
    await expect(client.connect()).rejects.toMatchObject({ code: "VALIDATION_FAILED", message: "systemInfo is too large" });
    await server.sockets[0]!.closed;
    expect(client.connected).toBe(false);
    expect(client.reconnecting).toBe(false);
    expect(server.sockets).toHaveLength(1);
  });

  it("on a reconnect, refused for now: drops that socket and connects again after the server's retryAfter", async () => {
    const { server, client, lines } = await setUp(["ack", "refuse for now", "ack"]);
    await client.connect();
    const reconnected = new Promise((resolve) => client.once("reconnected", resolve));
    server.sockets[0]!.ws.terminate();
    await reconnected;
    expect(client.connected).toBe(true);
    expect(server.sockets).toHaveLength(3);
    await server.sockets[1]!.closed;
    expect(lines).toContain("could not connect: no database connection");
    // The retry waited the 3 s the server asked for, longer than the backoff (at most 2 s by then).
    const retry = lines.filter((line) => line.startsWith("connection lost")).at(-1)!;
    expect(Number(/again in ([\d.]+) s/.exec(retry)![1])).toBeGreaterThanOrEqual(3);
    expect(await client.send({ type: "heartbeat" })).toMatchObject({ type: "ack" });
  });

  it("unanswered: gives the hello up after helloTimeoutSeconds, drops the socket and, on a reconnect, tries again", async () => {
    const { server, client, lines } = await setUp(["silence"], { helloTimeoutSeconds: 0.2 });
    await expect(client.connect()).rejects.toThrow("no answer to hello within 0.2 s");
    await server.sockets[0]!.closed;

    const reconnecting = await setUp(["ack", "silence", "ack"], { helloTimeoutSeconds: 0.2 });
    await reconnecting.client.connect();
    const reconnected = new Promise((resolve) => reconnecting.client.once("reconnected", resolve));
    reconnecting.server.sockets[0]!.ws.terminate();
    await reconnected;
    await reconnecting.server.sockets[1]!.closed;
    expect(reconnecting.lines).toContain("could not connect: no answer to hello within 0.2 s");
    expect(reconnecting.client.connected).toBe(true);
    expect(lines).toEqual([]);
  });

  it("dropped by the server during a reconnect's hello: schedules one reconnect, not one for the close and one for the hello", async () => {
    const { server, client, lines, logged } = await setUp(["ack", "drop", "ack"]);
    await client.connect();
    const reconnected = new Promise((resolve) => client.once("reconnected", resolve));
    server.sockets[0]!.ws.terminate();
    // The hello's socket closes under it: the close asks for a reconnect, then the hello's failure
    // does, right after logging it. Each reconnect scheduled logs a line as it is scheduled.
    await logged("could not connect");
    expect(lines.filter((line) => line.startsWith("connection lost"))).toHaveLength(2);
    await reconnected;
    expect(client.connected).toBe(true);
    expect(client.reconnecting).toBe(false);
    expect(server.sockets).toHaveLength(3);
  });
});

describe("a message after hello that is not answered", () => {
  it("is rejected after answerTimeoutSeconds, its stuck socket dropped, and on the new connection it can be sent again", async () => {
    const { server, client, lines } = await setUp(["deaf after hello", "ack"], { answerTimeoutSeconds: 0.2 });
    await client.connect();
    const reconnected = new Promise((resolve) => client.once("reconnected", resolve));
    const waiting = client.safety(false, "roof closed");
    // Its own timeout is far off: it ends with the socket.
    const alsoWaiting = client.send({ type: "weather", hold: true, reason: "rain" }, 20_000);
    await expect(waiting).rejects.toThrow("no answer to safety within 0.2 s");
    await expect(alsoWaiting).rejects.toThrow(/connection closed/);
    await server.sockets[0]!.closed;
    expect(lines).toContain("no answer to safety within 0.2 s; dropping the connection");
    await reconnected;
    expect(await client.safety(false, "roof closed")).toMatchObject({ type: "ack" });
    expect(server.sockets).toHaveLength(2);
  });

  it("given its own timeout, is rejected after it and the socket is kept", async () => {
    const { server, client, lines } = await setUp(["deaf after hello"]);
    await client.connect();
    await expect(client.send({ type: "heartbeat" }, 100)).rejects.toThrow("no answer to heartbeat within 0.1 s");
    expect(client.connected).toBe(true);
    expect(server.sockets).toHaveLength(1);
    expect(lines).toEqual([]);
  });
});

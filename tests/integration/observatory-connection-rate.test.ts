import { ObservatorySimulator } from "@meridian/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { createObservatoryKey } from "../support/observatory-keys";
import { controlServerClock, type TestClock } from "../support/test-clock";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { connectWebSocket } from "../support/ws-client";

/**
 * A plugin reconnecting in a loop: each connection costs a key lookup, a claim and history
 * entries, so one observatory opens at most OBSERVATORY_CONNECTIONS_PER_MINUTE a minute on a
 * process (a bucket of as many); beyond, the upgrade is 429 with Retry-After, which the client waits.
 */

const PER_MINUTE = 20;
let server: TestServer;
let clock: TestClock;
let owner: Account;
const { must } = jsonApi(() => server);

beforeAll(async () => {
  server = await startTestServer({ MERIDIAN_ROLE: "server", OBSERVATORY_CONNECTIONS_PER_MINUTE: String(PER_MINUTE) });
  // Stopped: the bucket refills only when the test moves the clock.
  clock = controlServerClock(server, Date.now());
  owner = await createAccount(server);
});
afterAll(() => server?.stop());

async function observatoryKey(name: string) {
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name } }, 201)) as { id: string };
  return createObservatoryKey(must, owner, observatory.id);
}

const upgrade = (key: string) => connectWebSocket(`${server.url.replace(/^http/, "ws")}/ws/observatory`, { authorization: `Bearer ${key}` });

/** Opens a connection with the key and closes it; fails unless the upgrade was accepted. */
async function connectOnce(key: string) {
  const attempt = await upgrade(key);
  if (!attempt.ok) throw new Error(`upgrade refused: ${attempt.status} ${attempt.body}`);
  await attempt.client.close();
}

describe("connections of one observatory a minute", () => {
  it("refuses the one past the bucket with 429 and Retry-After, leaves other observatories alone, and admits again as it refills", async () => {
    const key = await observatoryKey("Looping");
    for (let n = 0; n < PER_MINUTE; n += 1) await connectOnce(key);

    const refused = await upgrade(key);
    expect(refused).toMatchObject({ ok: false, status: 429, headers: { "retry-after": String(60 / PER_MINUTE) } });
    const problem = JSON.parse(refused.ok ? "" : refused.body) as { code: string; detail: string };
    expect(problem).toMatchObject({ code: "RATE_LIMITED" });
    expect(problem.detail).toBe(`At most ${PER_MINUTE} connections a minute are accepted for one observatory on this server; connect again in 3 s`);

    // Another observatory has a bucket of its own.
    await connectOnce(await observatoryKey("Quiet"));

    clock.set(clock.now() + 3_000);
    await connectOnce(key);
    expect((await upgrade(key)).ok).toBe(false);
  });

  it("a reconnecting plugin refused so waits the Retry-After, then comes back", async () => {
    const key = await observatoryKey("Reconnecting");
    for (let n = 0; n < PER_MINUTE - 1; n += 1) await connectOnce(key);
    const lines: string[] = [];
    const simulator = new ObservatorySimulator({ url: server.url, key, reconnect: true, log: (line) => lines.push(line) });
    try {
      await simulator.connect();
      const back = new Promise((resolve) => simulator.once("reconnected", resolve));
      simulator.dropOff();
      await until("the refused reconnection", async () => lines.includes("could not connect: connection refused: 429"));
      // After the refusal, the pause is the server's 3 s at least, longer than the backoff's second try (at most 2 s).
      const pauses = lines.filter((line) => line.startsWith("connection lost")).map((line) => Number(/in ([\d.]+) s/.exec(line)![1]));
      expect(pauses).toHaveLength(2);
      expect(pauses[1]).toBeGreaterThanOrEqual(3);
      clock.set(clock.now() + 60_000);
      await back;
      expect(await simulator.send({ type: "heartbeat" })).toMatchObject({ type: "ack" });
    } finally {
      await simulator.close();
    }
  });
});

import type { ObservatoryClient } from "@meridian/observatory-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { connectQuietPlugin, observingNetwork } from "../support/observing-network";
import { controlServerClock, type TestClock } from "../support/test-clock";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * Heartbeats cost no database work; each connection's sighting is written at most once a minute,
 * and a process writes its connections' sightings together, one statement for many observatories.
 */

const OBSERVATORIES = 20;
let server: TestServer;
let clock: TestClock;
let owner: Account;
const clients: ObservatoryClient[] = [];
const observatoryIds: string[] = [];
const { must } = jsonApi(() => server);

beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server" });
  clock = controlServerClock(server, Date.now());
  owner = await createAccount(server);
  for (let index = 0; index < OBSERVATORIES; index += 1) {
    const { observatory, key } = await observingNetwork(must, owner);
    clients.push(await connectQuietPlugin(server.url, key.key));
    observatoryIds.push(observatory.id);
  }
}, 120_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.stop();
});

/** Each observatory's connection row: when it was last seen, and the transaction that wrote it. */
async function connectionRows() {
  const { sql } = server.server.runtime.deps;
  return sql<Array<{ observatory_id: string; seen_ms: number; writer: string }>>`
    select observatory_id, round(extract(epoch from last_seen_at) * 1000)::float8 as seen_ms, xmin::text as writer
      from observatory_connections where observatory_id in ${sql(observatoryIds)}`;
}

describe("observatory sightings", () => {
  it("write nothing within the minute, then one batch for every connection heard after it", async () => {
    const before = await connectionRows();
    expect(before).toHaveLength(OBSERVATORIES);
    const claimed = new Map(before.map((row) => [row.observatory_id, row.seen_ms]));

    // Within the minute since each connection's claim: heartbeats are acknowledged, nothing is written.
    await Promise.all(clients.map((client) => client.send({ type: "heartbeat" })));

    const later = clock.now() + 61_000;
    clock.set(later);
    await Promise.all(clients.map((client) => client.send({ type: "heartbeat" })));
    const after = await until("every sighting to be written", async () => {
      const rows = await connectionRows();
      return rows.every((row) => row.seen_ms === later) ? rows : undefined;
    });
    for (const row of after) expect(row.seen_ms).toBeGreaterThan(claimed.get(row.observatory_id)!);
    // Gathered for a second at most: the twenty heartbeats, sent together, land in one batch (two if
    // the window closed between them), never one write each.
    expect(new Set(after.map((row) => row.writer)).size).toBeLessThanOrEqual(2);

    // The observatories read online with the time they were last seen.
    const read = (await must(`/observatories/${observatoryIds[0]}`, { token: owner.token }, 200)) as { connection: { online: boolean; lastSeenAt: string } };
    expect(read.connection).toMatchObject({ online: true, lastSeenAt: new Date(later).toISOString() });
  });
});

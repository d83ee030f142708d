import { observatoryHistoryCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "history-retention-admin@example.com", password: "history retention admin password" };
const KEEP = 5;
let server: TestServer;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", OBSERVATORY_HISTORY_KEEP: String(KEEP) }));
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

describe("observatory history retention", () => {
  it("the daily prune_observatory_history keeps each observatory's newest OBSERVATORY_HISTORY_KEEP entries and leaves smaller histories alone", async () => {
    const owner = await createAccount(server);
    const crowded = await must("/observatories", { method: "POST", token: owner.token, json: { name: "Flapping sensor" } }, 201);
    const quiet = await must("/observatories", { method: "POST", token: owner.token, json: { name: "Quiet one" } }, 201);
    const db = server.server.runtime.deps.db;
    // What a weather sensor flapping all night writes: one entry per change.
    for (let n = 1; n <= 8; n += 1) {
      const entry = { observatoryId: crowded.id, type: "weather_hold", actorId: null, data: { hold: n % 2 === 1, n } };
      await observatoryHistoryCollection.insert(db, entry, undefined, { stampAtStatement: true });
    }
    const history = async (id: string) =>
      (await must(`/observatories/${id}/history?limit=200`, { token: owner.token }, 200)).items as Array<{ type: string; data: { n?: number } }>;
    const quietBefore = await history(quiet.id);
    expect(await history(crowded.id)).toHaveLength(9);

    await db.execute(sql`select graphile_worker.add_job('prune_observatory_history', '{}'::json)`);
    const kept = await until("the crowded history to be cut to its newest entries", async () => {
      const items = await history(crowded.id);
      return items.length === KEEP ? items : undefined;
    });
    expect(kept.map((item) => item.data.n)).toEqual([8, 7, 6, 5, 4]);
    expect(await history(quiet.id)).toEqual(quietBefore);
  });
});

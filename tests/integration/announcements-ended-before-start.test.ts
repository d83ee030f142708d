import { MAX_SHOWING_ANNOUNCEMENTS as SHOWING } from "@meridian/domain/announcements";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { copyRow } from "../support/row-copies";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * A scheduled announcement that newer ones push out of the hundred its scope shows (ADR 0031)
 * before it starts never starts: nobody is sent it when its start job runs. A worker runs beside
 * the server here, for that job.
 */
const ADMIN = { email: "motd-ended-early-admin@example.com", password: "motd ended early admin password" };
let server: TestServer;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);
const sql = () => server.server.runtime.deps.sql;

describe("a scheduled announcement ended before it starts", () => {
  it("is ended only when no started one is left to end, and then its start sends nothing", async () => {
    const owner = await createAccount(server);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Early endings" } }, 201)) as { id: string };
    const base = `/projects/${project.id}`;
    const create = async (extra: Record<string, unknown> = {}) =>
      (await must(
        `${base}/motd`,
        { method: "POST", token: owner.token, json: { title: "Dome notice", message: "Closed.", severity: "info", deliveryType: "message", ...extra } },
        201,
      )) as {
        id: string;
        status: string;
      };
    // The owner is the project's only member, so each announcement is acknowledged at its creation.
    const later = { startsAt: new Date(Date.now() + 3_600_000).toISOString() };
    const scheduled = await create(later);
    expect(scheduled.status).toBe("acknowledged");
    await copyRow(sql(), { table: "announcements", id: scheduled.id, copies: SHOWING - 2 });
    const started = await create();

    // The hundredth and first: the one started goes first, though it is the newest.
    await create(later);
    const expiryOf = async (id: string) =>
      (await sql()<Array<{ expires_at: Date | null }>>`select expires_at from announcements where id = ${id}`)[0]!.expires_at;
    expect(await expiryOf(started.id)).not.toBeNull();
    expect(await expiryOf(scheduled.id)).toBeNull();

    // Then only scheduled ones are left to end; the oldest is the first one created.
    await create(later);
    expect(await expiryOf(scheduled.id)).not.toBeNull();

    const startJob = `announcement-started:${scheduled.id}`;
    await sql()`update graphile_worker._private_jobs set run_at = now() where key = ${startJob}`;
    await until("the start job to have run", async () => {
      const [left] = await sql()<Array<{ count: number }>>`select count(*)::int as count from graphile_worker._private_jobs where key = ${startJob}`;
      return left!.count === 0;
    });
    const [sent] = await sql()<Array<{ count: number }>>`
      select count(*)::int as count from realtime_events where type = 'announcement.created' and announcement_id = ${scheduled.id}`;
    expect(sent!.count).toBe(0);
  });
});

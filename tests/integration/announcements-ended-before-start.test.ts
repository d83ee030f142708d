import { MAX_SHOWING_ANNOUNCEMENTS as SHOWING } from "@meridian/domain/announcements";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRow } from "../support/row-copies";
import { startTestRuntime, type TestRuntime } from "../support/test-runtime";
import { until } from "../support/until";

/**
 * A scheduled announcement that newer ones push out of the hundred its scope shows (ADR 0031)
 * before it starts never starts: nobody is sent it when its start job runs. A domain rule, through
 * the app router's caller on a runtime without HTTP, with the worker for that job.
 */
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime({ worker: true });
});
afterAll(() => runtime?.stop());
const sql = () => runtime.deps.sql;

describe("a scheduled announcement ended before it starts", () => {
  it("is ended only when no started one is left to end, and then its start sends nothing", async () => {
    const owner = await runtime.signup();
    const project = await owner.caller.projects.create({ name: "Early endings" });
    const create = (extra: { startsAt?: string } = {}) =>
      owner.caller.announcements.createScoped({
        scope: "project",
        scopeId: project.id,
        announcement: { title: "Dome notice", message: "Closed.", severity: "info", deliveryType: "message", ...extra },
      });
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

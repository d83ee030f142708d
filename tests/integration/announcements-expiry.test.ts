import { runAnnouncementMaintenance } from "@meridian/domain/announcements";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "motd-expiry-admin@example.com", password: "motd expiry admin password" };
const HOUR = 3_600_000;
let server: TestServer;
let adminToken: string;
let realNow: () => Date;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  realNow = server.server.runtime.deps.now;
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

/** Moves the server's clock to `offset` ms from the real time (it keeps running from there). */
const moveClock = (offset: number) => {
  server.server.runtime.deps.now = () => new Date(Date.now() + offset);
};
afterEach(() => {
  server.server.runtime.deps.now = realNow;
});
const inHours = (hours: number) => new Date(Date.now() + hours * HOUR).toISOString();

type Announcement = { id: string; status: string; startsAt: string; expiresAt: string | null; recipientCount: number; acknowledgedCount: number };
const body = (userIds: string[], extra: Record<string, unknown> = {}) => ({
  title: "Outage",
  message: "Network down",
  severity: "critical",
  deliveryType: "message",
  targets: { users: { ids: userIds } },
  ...extra,
});
const announce = async (userIds: string[], extra: Record<string, unknown> = {}) =>
  (await must("/api/v1/system/motd", { method: "POST", token: adminToken, json: body(userIds, extra) }, 201)) as Announcement;
const create = (userIds: string[], extra: Record<string, unknown> = {}) =>
  server.request("/api/v1/system/motd", { method: "POST", token: adminToken, json: body(userIds, extra) });
const pendingIds = async (account: Account) =>
  ((await must("/api/v1/user/motd/pending", { token: account.token }, 200)).items as Array<{ id: string }>).map((item) => item.id);
const acknowledge = (id: string, account: Account) => server.request(`/api/v1/system/motd/${id}/acknowledge`, { method: "POST", token: account.token });
const cancel = (id: string, reason = "No longer needed") =>
  server.request(`/api/v1/system/motd/${id}`, { method: "DELETE", token: adminToken, json: { reason } });
const list = async (status?: string) =>
  (await must(`/api/v1/system/motd?limit=200${status ? `&status=${status}` : ""}`, { token: adminToken }, 200)).items as Announcement[];
const listed = async (id: string, status?: string) => (await list(status)).find((item) => item.id === id);
const systemCount = async () => (await list()).length;
/** The status as stored, read straight from the database: no API read that could evaluate expiry. */
const stored = async (id: string) => {
  const [row] = await server.server.runtime.deps.sql<
    Array<{ status: string; expired_at: string | null }>
  >`select status, doc->>'expiredAt' as expired_at from announcements where id = ${id}`;
  return row!;
};

describe("expiresAt and startsAt on creation", () => {
  it.each([
    ["in the past", () => ({ expiresAt: inHours(-1) })],
    ["now-ish (a second ago)", () => ({ expiresAt: new Date(Date.now() - 1000).toISOString() })],
    ["before startsAt", () => ({ startsAt: inHours(3), expiresAt: inHours(2) })],
    [
      "equal to startsAt",
      () => {
        const at = inHours(2);
        return { startsAt: at, expiresAt: at };
      },
    ],
  ])("refuses an expiry %s with 400 VALIDATION_FAILED at expiresAt, creating nothing", async (_label, schedule) => {
    const alice = await createAccount(server);
    const before = await systemCount();
    const problem = await expectProblem(await create([alice.id], schedule()), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((error) => error.path)).toContain("expiresAt");
    expect(problem.errors?.every((error) => error.path === "expiresAt")).toBe(true);
    expect(await systemCount()).toBe(before);
    expect(await pendingIds(alice)).toEqual([]);
  });

  it("judges 'the future' by the server's clock", async () => {
    const alice = await createAccount(server);
    moveClock(48 * HOUR);
    const problem = await expectProblem(await create([alice.id], { expiresAt: inHours(24) }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.length).toBeGreaterThan(0);
    expect(problem.errors?.every((error) => error.path === "expiresAt")).toBe(true);
    const expiresAt = inHours(49);
    const response = await create([alice.id], { expiresAt });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ status: "active", expiresAt });
  });

  it("accepts an expiry with a UTC offset and returns it as the same instant", async () => {
    const alice = await createAccount(server);
    const instant = new Date(Date.now() + 5 * HOUR);
    instant.setUTCMilliseconds(0);
    const local = new Date(instant.getTime() + 2 * HOUR).toISOString().replace(/\.\d{3}Z$/, "+02:00");
    const created = await announce([alice.id], { expiresAt: local });
    expect(Date.parse(created.expiresAt!)).toBe(instant.getTime());
  });

  it("takes a start in the past to mean now", async () => {
    const alice = await createAccount(server);
    const before = Date.now();
    const created = await announce([alice.id], { startsAt: inHours(-5) });
    expect(Date.parse(created.startsAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(await pendingIds(alice)).toContain(created.id);
  });
});

describe("expiry", () => {
  it("once expiresAt has passed: listed expired, no longer pending, no acknowledgment or cancellation", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const created = await announce([alice.id, bob.id], { expiresAt: inHours(1) });
    const first = await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    expect(await pendingIds(bob)).toContain(created.id);

    moveClock(2 * HOUR);
    expect(await pendingIds(bob)).not.toContain(created.id);
    expect(await listed(created.id)).toMatchObject({ status: "expired", recipientCount: 2, acknowledgedCount: 1 });
    expect(await listed(created.id, "expired")).toBeDefined();
    expect(await listed(created.id, "active")).toBeUndefined();
    await expectProblem(await acknowledge(created.id, bob), 409, "INVALID_TRANSITION");
    await expectProblem(await cancel(created.id), 409, "INVALID_TRANSITION");
    // Alice acknowledged in time: she gets her acknowledgment back, nothing moves.
    expect(await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200)).toEqual(first);
    const view = await must(`/api/v1/system/motd/${created.id}/recipients`, { token: adminToken }, 200);
    expect(view.counts).toMatchObject({ total: 2, acknowledged: 1, pending: 1 });
    expect(view.cancellation).toBeNull();
    expect(await stored(created.id)).toMatchObject({ status: "expired" });
  });

  it("is evaluated by acknowledge and cancel themselves, without any read first", async () => {
    const alice = await createAccount(server);
    const forAck = await announce([alice.id], { expiresAt: inHours(1) });
    const forCancel = await announce([alice.id], { expiresAt: inHours(1) });
    moveClock(2 * HOUR);
    expect((await stored(forAck.id)).status).toBe("active");
    await expectProblem(await acknowledge(forAck.id, alice), 409, "INVALID_TRANSITION");
    await expectProblem(await cancel(forCancel.id), 409, "INVALID_TRANSITION");
    expect(await listed(forAck.id)).toMatchObject({ status: "expired", acknowledgedCount: 0 });
    expect(await listed(forCancel.id)).toMatchObject({ status: "expired", cancellationReason: null, cancelledAt: null });
  });

  it("is evaluated by the recipients view", async () => {
    const alice = await createAccount(server);
    const created = await announce([alice.id], { expiresAt: inHours(1) });
    moveClock(2 * HOUR);
    await must(`/api/v1/system/motd/${created.id}/recipients`, { token: adminToken }, 200);
    expect((await stored(created.id)).status).toBe("expired");
  });

  it("leaves a fully acknowledged announcement acknowledged", async () => {
    const alice = await createAccount(server);
    const created = await announce([alice.id], { expiresAt: inHours(1) });
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    const emailed = await announce([alice.id], { expiresAt: inHours(1), deliveryType: "email" });
    expect(emailed.status).toBe("acknowledged");
    moveClock(2 * HOUR);
    await runAnnouncementMaintenance({ deps: server.server.runtime.deps });
    expect(await listed(created.id)).toMatchObject({ status: "acknowledged", acknowledgedCount: 1 });
    expect(await listed(emailed.id)).toMatchObject({ status: "acknowledged" });
    expect(await stored(created.id)).toMatchObject({ status: "acknowledged", expired_at: null });
  });

  it("leaves a cancelled announcement cancelled", async () => {
    const alice = await createAccount(server);
    const created = await announce([alice.id], { expiresAt: inHours(1) });
    expect((await cancel(created.id)).status).toBe(200);
    moveClock(2 * HOUR);
    await runAnnouncementMaintenance({ deps: server.server.runtime.deps });
    expect(await listed(created.id)).toMatchObject({ status: "cancelled", cancellationReason: "No longer needed" });
  });

  it("never expires without expiresAt", async () => {
    const alice = await createAccount(server);
    const created = await announce([alice.id]);
    moveClock(20 * 24 * HOUR);
    await runAnnouncementMaintenance({ deps: server.server.runtime.deps });
    expect(await listed(created.id)).toMatchObject({ status: "active" });
    expect(await pendingIds(alice)).toContain(created.id);
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
  });

  it("is stored by the periodic job, with no read at all", async () => {
    const alice = await createAccount(server);
    const due = await announce([alice.id], { expiresAt: inHours(1) });
    const later = await announce([alice.id], { expiresAt: inHours(5) });
    moveClock(2 * HOUR);
    // Nothing has read it since the clock moved: still active as stored.
    expect(await stored(due.id)).toMatchObject({ status: "active", expired_at: null });

    const result = await runAnnouncementMaintenance({ deps: server.server.runtime.deps });
    expect(result.expired).toBeGreaterThanOrEqual(1);
    const row = await stored(due.id);
    expect(row.status).toBe("expired");
    expect(Date.parse(row.expired_at!)).toBeGreaterThan(Date.parse(due.expiresAt!));
    expect((await stored(later.id)).status).toBe("active");

    // Running it again changes nothing more.
    const again = await runAnnouncementMaintenance({ deps: server.server.runtime.deps });
    expect(again.expired).toBe(0);
    expect((await stored(due.id)).expired_at).toBe(row.expired_at);
    expect(await listed(due.id)).toMatchObject({ status: "expired" });
    expect(await listed(later.id)).toMatchObject({ status: "active" });
  });
});

describe("scheduling (startsAt)", () => {
  it("before startsAt: listed active, pending for nobody, not acknowledgeable; then pending once started", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const startsAt = inHours(1);
    const created = await announce([alice.id, bob.id], { startsAt, expiresAt: inHours(3) });
    expect(created).toMatchObject({ status: "active", startsAt: new Date(startsAt).toISOString(), recipientCount: 2, acknowledgedCount: 0 });
    expect(await listed(created.id, "active")).toMatchObject({ status: "active", startsAt: created.startsAt });
    expect(await pendingIds(alice)).not.toContain(created.id);
    await expectProblem(await acknowledge(created.id, alice), 409, "INVALID_TRANSITION");
    expect((await must(`/api/v1/system/motd/${created.id}/recipients`, { token: adminToken })).counts).toMatchObject({ acknowledged: 0, pending: 2 });

    moveClock(2 * HOUR);
    expect(await pendingIds(alice)).toContain(created.id);
    expect(await pendingIds(bob)).toContain(created.id);
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    expect(await pendingIds(alice)).not.toContain(created.id);
    expect(await listed(created.id)).toMatchObject({ status: "active", acknowledgedCount: 1 });

    moveClock(4 * HOUR);
    expect(await pendingIds(bob)).not.toContain(created.id);
    expect(await listed(created.id)).toMatchObject({ status: "expired", acknowledgedCount: 1 });
  });

  it("a scheduled announcement can be cancelled and then never shows", async () => {
    const alice = await createAccount(server);
    const created = await announce([alice.id], { startsAt: inHours(1) });
    expect((await cancel(created.id, "Postponed")).status).toBe(200);
    moveClock(2 * HOUR);
    expect(await pendingIds(alice)).not.toContain(created.id);
    await expectProblem(await acknowledge(created.id, alice), 409, "INVALID_TRANSITION");
    expect(await listed(created.id)).toMatchObject({ status: "cancelled", cancellationReason: "Postponed" });
  });

  it("the periodic job does not expire a scheduled announcement before its expiry", async () => {
    const alice = await createAccount(server);
    const created = await announce([alice.id], { startsAt: inHours(1), expiresAt: inHours(3) });
    moveClock(2 * HOUR);
    await runAnnouncementMaintenance({ deps: server.server.runtime.deps });
    expect((await stored(created.id)).status).toBe("active");
    moveClock(4 * HOUR);
    await runAnnouncementMaintenance({ deps: server.server.runtime.deps });
    expect((await stored(created.id)).status).toBe("expired");
  });
});

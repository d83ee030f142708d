import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { deleteRows, expectCursorRefused, expectTrpcCursorRefused, foreignCursors, trpcQuery } from "../support/list-cursors";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "motd-admin@example.com", password: "motd admin password" };
let server: TestServer;
let adminToken: string;
let adminId: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  adminId = (await must("/api/v1/auth/me", { token: adminToken })).id;
});
afterAll(() => server?.stop());
const { must, call, createObservatory, addObservatoryMember } = jsonApi(() => server);

type Announcement = {
  id: string;
  scope: string;
  scopeId: string | null;
  title: string;
  status: string;
  severity: string;
  deliveryType: string;
  startsAt: string;
  expiresAt: string | null;
  recipientCount: number;
  acknowledgedCount: number;
  cancellationReason: string | null;
  cancelledAt: string | null;
  acknowledgedAt?: string | null;
};
type Recipient = {
  userId: string;
  email: string;
  name: string;
  status: string;
  acknowledgedAt: string | null;
  emailedAt: string | null;
  seenAt: string | null;
  via: string;
};
type RecipientsView = {
  items: Recipient[];
  counts: { total: number; acknowledged: number; pending: number };
  cancellation: null | { reason: string; cancelledAt: string; cancelledBy: string | null };
};

const announce = async (targets: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  (await must(
    "/api/v1/system/motd",
    {
      method: "POST",
      token: adminToken,
      json: { title: "Downtime", message: "Dome maintenance", severity: "warning", deliveryType: "message", targets, ...extra },
    },
    201,
  )) as Announcement;
const pending = async (account: Account) => (await must("/api/v1/user/motd/pending", { token: account.token }, 200)).items as Announcement[];
const pendingIds = async (account: Account) => (await pending(account)).map((item) => item.id);
const acknowledge = (id: string, token: string) => server.request(`/api/v1/system/motd/${id}/acknowledge`, { method: "POST", token });
const cancel = (id: string, json?: unknown) => server.request(`/api/v1/system/motd/${id}`, { method: "DELETE", token: adminToken, json });
const recipientsOf = async (id: string, query = "") =>
  (await must(`/api/v1/system/motd/${id}/recipients?limit=200${query}`, { token: adminToken }, 200)) as RecipientsView;
const listed = async (id: string, status?: string) => {
  const list = (await must(`/api/v1/system/motd?limit=200${status ? `&status=${status}` : ""}`, { token: adminToken }, 200)).items as Announcement[];
  return list.find((item) => item.id === id);
};

describe("system announcement lifecycle", () => {
  it("selected users: pending until each acknowledges, then acknowledged", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id, bob.id] } });
    expect(created).toMatchObject({ status: "active", recipientCount: 2, acknowledgedCount: 0, cancellationReason: null });
    expect(await pendingIds(alice)).toContain(created.id);
    const first = await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    const again = await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    expect(again.acknowledgedAt).toBe(first.acknowledgedAt);
    expect(await pendingIds(alice)).not.toContain(created.id);
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: bob.token }, 200);
    const list = await must("/api/v1/system/motd?status=acknowledged", { token: adminToken });
    expect(list.items.find((item: Announcement) => item.id === created.id)).toMatchObject({ status: "acknowledged", acknowledgedCount: 2 });
    const recipients = await must(`/api/v1/system/motd/${created.id}/recipients?sort=email`, { token: adminToken });
    expect(recipients.counts).toMatchObject({ total: 2, acknowledged: 2, pending: 0 });
    await expectProblem(
      await server.request(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken, json: { reason: "late" } }),
      409,
      "INVALID_TRANSITION",
    );
  });

  it("leaves disabled accounts out, whichever target names them, so the enabled ones can acknowledge it", async () => {
    const alice = await createAccount(server);
    const gone = await createAccount(server);
    const member = await createAccount(server);
    await must(`/api/v1/admin/users/${gone.id}`, { method: "PUT", token: adminToken, json: { disabled: true } }, 200);
    const observatory = await createObservatory(member);
    await addObservatoryMember(member, observatory.id, gone);

    const byIds = await announce({ users: { ids: [alice.id, gone.id] }, observatories: { ids: [observatory.id] } });
    expect(byIds.recipientCount).toBe(2);
    expect((await recipientsOf(byIds.id)).items.map((recipient) => recipient.userId).sort()).toEqual([alice.id, member.id].sort());
    for (const account of [alice, member]) await must(`/api/v1/system/motd/${byIds.id}/acknowledge`, { method: "POST", token: account.token }, 200);
    expect(await listed(byIds.id, "acknowledged")).toMatchObject({ status: "acknowledged", acknowledgedCount: 2 });

    const everyone = await announce({ users: { all: true } });
    const accounts = await server.server.runtime.deps.sql<Array<{ all: number; enabled: number }>>`
      select count(*)::int as all, count(*) filter (where not coalesce((doc->>'disabled')::boolean, false))::int as enabled from users`;
    expect(accounts[0]!.all).toBeGreaterThan(accounts[0]!.enabled);
    expect(everyone.recipientCount).toBe(accounts[0]!.enabled);
    // Nor is a disabled account offered to pick.
    const offered = async (account: Account) =>
      (await must(`/api/v1/system/motd/target-options?kind=users&q=${encodeURIComponent(account.email)}`, { token: adminToken }, 200)).items;
    expect(await offered(alice)).toHaveLength(1);
    expect(await offered(gone)).toEqual([]);

    const scoped = await must(
      `/observatories/${observatory.id}/motd`,
      { method: "POST", token: member.token, json: { title: "Dome", message: "Closed tonight", severity: "info", deliveryType: "message" } },
      201,
    );
    expect(scoped.recipientCount).toBe(1);
  });

  it("cancels with a reason only, and a stranger cannot acknowledge", async () => {
    const alice = await createAccount(server);
    const stranger = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id] } });
    await expectProblem(await server.request(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken }), 400, "REASON_REQUIRED");
    await expectProblem(
      await server.request(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken, json: { reason: "   " } }),
      400,
      "REASON_REQUIRED",
    );
    const cancelled = await must(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken, json: { reason: "Wrong date" } }, 200);
    expect(cancelled).toMatchObject({ status: "cancelled", cancellationReason: "Wrong date", cancelledAt: expect.any(String) });
    await expectProblem(
      await server.request(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }),
      409,
      "INVALID_TRANSITION",
    );
    const recipients = await must(`/api/v1/system/motd/${created.id}/recipients`, { token: adminToken });
    expect(recipients.cancellation).toMatchObject({ reason: "Wrong date" });
    expect((await call(`/api/v1/system/motd`, { token: alice.token })).status).toBe(403);
  });

  it("refuses unknown ids, listing them", async () => {
    const problem = await expectProblem(
      await server.request("/api/v1/system/motd", {
        method: "POST",
        token: adminToken,
        json: {
          title: "x",
          message: "y",
          severity: "info",
          deliveryType: "message",
          targets: { users: { ids: ["usr_nope"] }, projects: { ids: ["prj_gone"] } },
        },
      }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors).toEqual([
      { path: "targets.users.ids.0", message: expect.stringContaining("usr_nope") },
      { path: "targets.projects.ids.0", message: expect.stringContaining("prj_gone") },
    ]);
  });
});

describe("creation", () => {
  it("answers 201 with the contract's announcement, targets as given and no duplicate ids", async () => {
    const alice = await createAccount(server);
    const before = Date.now();
    const created = await announce(
      { users: { ids: [alice.id, alice.id] } },
      { title: "  Planned downtime  ", message: "Line one\nLine two\twith a tab", severity: "critical" },
    );
    expect(created).toMatchObject({
      id: expect.any(String),
      scope: "system",
      scopeId: null,
      title: "Planned downtime",
      message: "Line one\nLine two\twith a tab",
      severity: "critical",
      deliveryType: "message",
      expiresAt: null,
      status: "active",
      createdBy: adminId,
      recipientCount: 1,
      acknowledgedCount: 0,
      cancellationReason: null,
      cancelledAt: null,
      targets: { users: { all: false, ids: [alice.id] } },
    });
    expect(Date.parse(created.startsAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(created.startsAt)).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await listed(created.id)).toEqual(created);
    const [shown] = (await pending(alice)).filter((item) => item.id === created.id);
    expect(shown).toMatchObject({ id: created.id, title: "Planned downtime", severity: "critical", status: "active", acknowledgedAt: null });
    // Targets name users and objects: senders see them, recipients do not.
    expect(shown).not.toHaveProperty("targets");
  });

  it("acknowledges the creator at creation when the creator is a recipient", async () => {
    const alice = await createAccount(server);
    const created = await announce({ users: { ids: [adminId, alice.id] } });
    expect(created).toMatchObject({ status: "active", recipientCount: 2, acknowledgedCount: 1 });
    const view = await recipientsOf(created.id);
    expect(view.counts).toMatchObject({ total: 2, acknowledged: 1, pending: 1 });
    const admin = view.items.find((item) => item.userId === adminId)!;
    expect(admin).toMatchObject({ status: "acknowledged", acknowledgedAt: expect.any(String), via: "user" });
    expect(view.items.find((item) => item.userId === alice.id)).toMatchObject({ status: "pending", acknowledgedAt: null });
    expect((await must("/api/v1/user/motd/pending", { token: adminToken })).items.map((item: Announcement) => item.id)).not.toContain(created.id);
    // Acknowledging again keeps the creation time.
    expect(await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: adminToken }, 200)).toEqual({
      acknowledgedAt: admin.acknowledgedAt,
    });
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    expect(await listed(created.id)).toMatchObject({ status: "acknowledged", acknowledgedCount: 2 });
  });

  it("is acknowledged at once when the creator is the only recipient", async () => {
    const created = await announce({ users: { ids: [adminId] } });
    expect(created).toMatchObject({ status: "acknowledged", recipientCount: 1, acknowledgedCount: 1 });
    expect(await listed(created.id, "acknowledged")).toMatchObject({ status: "acknowledged" });
  });

  it("users.all reaches every user once, the creator acknowledged", async () => {
    const alice = await createAccount(server);
    const { total } = await must("/api/v1/system/motd/target-options?kind=users", { token: adminToken }, 200);
    const created = await announce({ users: { all: true } });
    expect(created).toMatchObject({ status: "active", recipientCount: total, acknowledgedCount: 1, targets: { users: { all: true, ids: [] } } });
    const view = await recipientsOf(created.id);
    expect(view.items).toHaveLength(total);
    expect(new Set(view.items.map((item) => item.userId)).size).toBe(total);
    expect(view.items.every((item) => item.via === "all_users")).toBe(true);
    expect(view.items.filter((item) => item.status === "acknowledged").map((item) => item.userId)).toEqual([adminId]);
    expect(await pendingIds(alice)).toContain(created.id);
    await must(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken, json: { reason: "Sent by mistake" } }, 200);
    expect(await pendingIds(alice)).not.toContain(created.id);
  });

  it.each(["email", "both"])("deliveryType %s: every recipient is acknowledged at creation and the announcement is acknowledged", async (deliveryType) => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id, bob.id] } }, { deliveryType });
    expect(created).toMatchObject({ deliveryType, status: "acknowledged", recipientCount: 2, acknowledgedCount: 2 });
    const view = await recipientsOf(created.id);
    expect(view.counts).toMatchObject({ total: 2, acknowledged: 2, pending: 0 });
    expect(view.items.every((item) => item.status === "acknowledged" && item.acknowledgedAt !== null)).toBe(true);
    expect(await pendingIds(alice)).not.toContain(created.id);
    expect(await pendingIds(bob)).not.toContain(created.id);
    const again = await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    expect(again.acknowledgedAt).toBe(view.items.find((item) => item.userId === alice.id)!.acknowledgedAt);
    expect(await listed(created.id, "acknowledged")).toMatchObject({ status: "acknowledged", acknowledgedCount: 2 });
  });

  it("deliveryType message stays active and pending", async () => {
    const alice = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id] } }, { deliveryType: "message" });
    expect(created).toMatchObject({ deliveryType: "message", status: "active", acknowledgedCount: 0 });
    expect((await recipientsOf(created.id)).items[0]).toMatchObject({ userId: alice.id, status: "pending", acknowledgedAt: null, emailedAt: null });
    expect(await pendingIds(alice)).toContain(created.id);
  });
});

describe("acknowledgment", () => {
  it("counts each recipient once, on the list and in the recipients view, until the last one", async () => {
    const people = [
      await createAccount(server, { name: "Carol" }),
      await createAccount(server, { name: "alice" }),
      await createAccount(server, { name: "Bob" }),
    ];
    const created = await announce({ users: { ids: people.map((person) => person.id) } });
    const acknowledgedAt: Record<string, string> = {};
    for (const [index, person] of people.entries()) {
      expect(await listed(created.id)).toMatchObject({ status: "active", recipientCount: 3, acknowledgedCount: index });
      const response = await acknowledge(created.id, person.token);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { acknowledgedAt: string };
      expect(Object.keys(body)).toEqual(["acknowledgedAt"]);
      expect(Number.isNaN(Date.parse(body.acknowledgedAt))).toBe(false);
      acknowledgedAt[person.id] = body.acknowledgedAt;
      // Twice in a row, and concurrently: still counted once, the first time kept.
      const repeats = await Promise.all([acknowledge(created.id, person.token), acknowledge(created.id, person.token)]);
      for (const repeat of repeats) expect(await repeat.json()).toEqual({ acknowledgedAt: body.acknowledgedAt });

      const view = await recipientsOf(created.id);
      expect(view.counts).toMatchObject({ total: 3, acknowledged: index + 1, pending: 2 - index });
      for (const item of view.items) {
        expect(item).toMatchObject(
          acknowledgedAt[item.userId] ? { status: "acknowledged", acknowledgedAt: acknowledgedAt[item.userId] } : { status: "pending", acknowledgedAt: null },
        );
      }
      expect(await pendingIds(person)).not.toContain(created.id);
    }
    expect(await listed(created.id)).toMatchObject({ status: "acknowledged", recipientCount: 3, acknowledgedCount: 3 });
  });

  it("counts concurrent acknowledgments exactly: many recipients at once, each several times", async () => {
    const people = await Promise.all(Array.from({ length: 6 }, () => createAccount(server)));
    const created = await announce({ users: { ids: people.map((person) => person.id) } });
    const responses = await Promise.all(
      people.flatMap((person) => [acknowledge(created.id, person.token), acknowledge(created.id, person.token), acknowledge(created.id, person.token)]),
    );
    const bodies = await Promise.all(
      responses.map(async (response) => ({ status: response.status, body: (await response.json()) as { acknowledgedAt: string } })),
    );
    expect(bodies.every((entry) => entry.status === 200)).toBe(true);
    for (const [index] of people.entries()) {
      const mine = bodies.slice(index * 3, index * 3 + 3).map((entry) => entry.body.acknowledgedAt);
      expect(new Set(mine).size).toBe(1);
    }
    expect(await listed(created.id)).toMatchObject({ status: "acknowledged", recipientCount: 6, acknowledgedCount: 6 });
    expect((await recipientsOf(created.id)).counts).toMatchObject({ total: 6, acknowledged: 6, pending: 0 });
  });

  it("lets the recipients view filter by status and sort", async () => {
    const carol = await createAccount(server, { name: "Carol", email: `carol-${Date.now()}@example.com` });
    const alice = await createAccount(server, { name: "alice", email: `zed-${Date.now()}@example.com` });
    const bob = await createAccount(server, { name: "Bob", email: `adam-${Date.now()}@example.com` });
    const created = await announce({ users: { ids: [carol.id, alice.id, bob.id] } });
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: bob.token }, 200);
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: carol.token }, 200);

    const ids = (view: RecipientsView) => view.items.map((item) => item.userId);
    expect(ids(await recipientsOf(created.id))).toEqual([alice.id, bob.id, carol.id]);
    expect(ids(await recipientsOf(created.id, "&sort=name&order=desc"))).toEqual([carol.id, bob.id, alice.id]);
    expect(ids(await recipientsOf(created.id, "&sort=email"))).toEqual([bob.id, carol.id, alice.id]);
    expect(ids(await recipientsOf(created.id, "&sort=acknowledgedAt"))).toEqual([bob.id, carol.id, alice.id]);
    expect(ids(await recipientsOf(created.id, "&sort=acknowledgedAt&order=desc"))).toEqual([carol.id, bob.id, alice.id]);
    const pendingOnly = await recipientsOf(created.id, "&status=pending");
    expect(ids(pendingOnly)).toEqual([alice.id]);
    expect(pendingOnly.counts).toMatchObject({ total: 3, acknowledged: 2, pending: 1 });
    expect(ids(await recipientsOf(created.id, "&status=acknowledged&sort=name"))).toEqual([bob.id, carol.id]);
    expect((await recipientsOf(created.id)).items.find((item) => item.userId === alice.id)).toMatchObject({
      email: alice.email,
      name: "alice",
      via: "user",
      emailedAt: null,
      seenAt: null,
    });
  });

  it("answers 404 to a non-recipient, for an unknown id, and for another scope's announcement", async () => {
    const alice = await createAccount(server);
    const stranger = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id] } });
    await expectProblem(await acknowledge(created.id, stranger.token), 404, "NOT_FOUND");
    await expectProblem(await acknowledge(created.id, adminToken), 404, "NOT_FOUND");
    await expectProblem(await acknowledge("ann_doesnotexist", alice.token), 404, "NOT_FOUND");
    expect(await listed(created.id)).toMatchObject({ status: "active", acknowledgedCount: 0 });

    // An observatory announcement is not reachable through the system paths.
    const observatory = await createObservatory(alice);
    const scoped = (await must(
      `/observatories/${observatory.id}/motd`,
      { method: "POST", token: adminToken, json: { title: "Roof", message: "Roof stuck", severity: "info", deliveryType: "message" } },
      201,
    )) as Announcement;
    expect(scoped).toMatchObject({ scope: "observatory", scopeId: observatory.id });
    await expectProblem(await acknowledge(scoped.id, alice.token), 404, "NOT_FOUND");
    await expectProblem(await cancel(scoped.id, { reason: "wrong path" }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/api/v1/system/motd/${scoped.id}/recipients`, { token: adminToken }), 404, "NOT_FOUND");
    expect(await listed(scoped.id)).toBeUndefined();
  });
});

describe("cancellation", () => {
  it("needs a non-blank reason and records reason, time and who", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id, bob.id] } });
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    for (const json of [undefined, {}, { reason: "" }, { reason: " \t\n " }]) {
      await expectProblem(await cancel(created.id, json), 400, "REASON_REQUIRED");
    }
    // A reason that is not a string is malformed input, not a missing reason.
    for (const reason of [null, 42, ["why"], { text: "why" }]) await expectProblem(await cancel(created.id, { reason }), 400, "VALIDATION_FAILED");
    expect(await listed(created.id)).toMatchObject({ status: "active", cancellationReason: null, cancelledAt: null });
    expect(await pendingIds(bob)).toContain(created.id);

    const before = Date.now();
    const response = await cancel(created.id, { reason: "  Rescheduled to Friday  " });
    expect(response.status).toBe(200);
    const cancelled = (await response.json()) as Announcement;
    expect(cancelled).toMatchObject({
      id: created.id,
      status: "cancelled",
      cancellationReason: "Rescheduled to Friday",
      recipientCount: 2,
      acknowledgedCount: 1,
    });
    expect(Date.parse(cancelled.cancelledAt!)).toBeGreaterThanOrEqual(before - 1000);
    expect(await listed(created.id)).toMatchObject({ status: "cancelled", cancellationReason: "Rescheduled to Friday", cancelledAt: cancelled.cancelledAt });
    expect(await listed(created.id, "cancelled")).toBeDefined();
    expect(await listed(created.id, "active")).toBeUndefined();

    const view = await recipientsOf(created.id);
    expect(view.cancellation).toMatchObject({ reason: "Rescheduled to Friday", cancelledAt: cancelled.cancelledAt, cancelledBy: adminId });
    expect(view.counts).toMatchObject({ total: 2, acknowledged: 1, pending: 1 });
    expect(await pendingIds(bob)).not.toContain(created.id);
  });

  it("refuses every move out of cancelled with 409 INVALID_TRANSITION", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id, bob.id] } });
    const first = await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    await must(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken, json: { reason: "Called off" } }, 200);
    await expectProblem(await cancel(created.id, { reason: "Again" }), 409, "INVALID_TRANSITION");
    await expectProblem(await acknowledge(created.id, bob.token), 409, "INVALID_TRANSITION");
    // Alice acknowledged before: she gets her acknowledgment back, and nothing changes.
    expect(await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200)).toEqual(first);
    expect(await listed(created.id)).toMatchObject({ status: "cancelled", cancellationReason: "Called off", acknowledgedCount: 1 });
  });

  it("refuses to cancel an acknowledged announcement", async () => {
    const alice = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id] } });
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    await expectProblem(await cancel(created.id, { reason: "Too late" }), 409, "INVALID_TRANSITION");
    await expectProblem(await cancel(created.id), 400, "REASON_REQUIRED");
    expect(await listed(created.id)).toMatchObject({ status: "acknowledged", cancellationReason: null, cancelledAt: null });
    expect((await recipientsOf(created.id)).cancellation).toBeNull();
  });

  it("answers 404 for an announcement that does not exist", async () => {
    await expectProblem(await cancel("ann_doesnotexist", { reason: "Gone" }), 404, "NOT_FOUND");
    await expectProblem(await server.request("/api/v1/system/motd/ann_doesnotexist/recipients", { token: adminToken }), 404, "NOT_FOUND");
  });
});

describe("GET /api/v1/system/motd", () => {
  it("filters by status, newest first, and lists only system announcements", async () => {
    const alice = await createAccount(server);
    const active = await announce({ users: { ids: [alice.id] } });
    const acknowledged = await announce({ users: { ids: [alice.id] } });
    await must(`/api/v1/system/motd/${acknowledged.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    const cancelled = await announce({ users: { ids: [alice.id] } });
    await must(`/api/v1/system/motd/${cancelled.id}`, { method: "DELETE", token: adminToken, json: { reason: "No" } }, 200);
    const emailed = await announce({ users: { ids: [alice.id] } }, { deliveryType: "email" });

    const all = (await must("/api/v1/system/motd?limit=200", { token: adminToken })).items as Announcement[];
    const mine = all.filter((item) => [active.id, acknowledged.id, cancelled.id, emailed.id].includes(item.id));
    expect(mine.map((item) => item.id)).toEqual([emailed.id, cancelled.id, acknowledged.id, active.id]);
    expect(all.every((item) => item.scope === "system")).toBe(true);
    const ids = [...all.map((item) => item.id)];
    expect(ids).toEqual([...ids].sort().reverse());

    for (const status of ["active", "acknowledged", "cancelled", "expired"]) {
      const items = (await must(`/api/v1/system/motd?limit=200&status=${status}`, { token: adminToken })).items as Announcement[];
      expect(items.every((item) => item.status === status)).toBe(true);
      expect(items.map((item) => item.id)).toEqual(all.filter((item) => item.status === status).map((item) => item.id));
    }
    expect(await listed(active.id, "active")).toBeDefined();
    expect(await listed(acknowledged.id, "acknowledged")).toBeDefined();
    expect(await listed(emailed.id, "acknowledged")).toBeDefined();
    expect(await listed(cancelled.id, "cancelled")).toBeDefined();
    expect(await listed(active.id, "cancelled")).toBeUndefined();
  });

  it("pages with limit and nextCursor", async () => {
    const alice = await createAccount(server);
    for (let index = 0; index < 3; index += 1) await announce({ users: { ids: [alice.id] } });
    const all = (await must("/api/v1/system/motd?limit=200", { token: adminToken })).items.map((item: Announcement) => item.id) as string[];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Announcement[]; nextCursor: string | null } = await must(`/api/v1/system/motd?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
        token: adminToken,
      });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it("goes on past an announcement deleted since its page was read, and refuses a cursor it never gave (the managed list too)", async () => {
    const alice = await createAccount(server);
    for (let index = 0; index < 5; index += 1) await announce({ users: { ids: [alice.id] } });
    const ids = (page: { items: Announcement[] }) => page.items.map((item) => item.id);
    const all = ids(await must("/api/v1/system/motd?limit=200", { token: adminToken }));
    const first = await must("/api/v1/system/motd?limit=2", { token: adminToken });
    expect(ids(first)).toEqual(all.slice(0, 2));
    await deleteRows(server.databaseUrl, "announcements", [all[1]!]);
    const cursor = encodeURIComponent(first.nextCursor);
    expect(ids(await must(`/api/v1/system/motd?limit=2&cursor=${cursor}`, { token: adminToken }))).toEqual(all.slice(2, 4));
    // The managed list is in the same order: a page of one goes on in the other.
    expect(ids(await must(`/api/v1/user/motd/managed?scope=system&limit=2&cursor=${cursor}`, { token: adminToken }))).toEqual(all.slice(2, 4));
    const viaTrpc = await trpcData<{ items: Announcement[] }>(
      await server.request(trpcQuery("announcements.listSystem", { limit: 2, cursor: first.nextCursor }), { token: adminToken }),
    );
    expect(ids(viaTrpc)).toEqual(all.slice(2, 4));

    for (const foreign of [...foreignCursors, all[2]!]) {
      await expectCursorRefused(await server.request(`/api/v1/system/motd?cursor=${encodeURIComponent(foreign)}`, { token: adminToken }));
      await expectCursorRefused(await server.request(`/api/v1/user/motd/managed?scope=system&cursor=${encodeURIComponent(foreign)}`, { token: adminToken }));
      await expectTrpcCursorRefused(await server.request(trpcQuery("announcements.listSystem", { cursor: foreign }), { token: adminToken }));
    }
  });
});

describe("GET /api/v1/user/motd/pending", () => {
  it("lists only active, started, unacknowledged announcements of every scope, most severe first", async () => {
    const alice = await createAccount(server);
    const owner = await createAccount(server);
    const ownsNothing = await createAccount(server);
    const info = await announce({ users: { ids: [alice.id] } }, { severity: "info", title: "Info" });
    const critical = await announce({ users: { ids: [alice.id] } }, { severity: "critical", title: "Critical" });
    const acknowledged = await announce({ users: { ids: [alice.id] } });
    await must(`/api/v1/system/motd/${acknowledged.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    const cancelled = await announce({ users: { ids: [alice.id] } });
    await must(`/api/v1/system/motd/${cancelled.id}`, { method: "DELETE", token: adminToken, json: { reason: "No" } }, 200);
    const emailed = await announce({ users: { ids: [alice.id] } }, { deliveryType: "both" });
    const scheduled = await announce({ users: { ids: [alice.id] } }, { startsAt: new Date(Date.now() + 3_600_000).toISOString() });
    const unexpired = await announce({ users: { ids: [alice.id] } }, { expiresAt: new Date(Date.now() + 3_600_000).toISOString(), severity: "info" });
    const forOthers = await announce({ users: { ids: [ownsNothing.id] } });

    const observatory = await createObservatory(owner);
    await addObservatoryMember(owner, observatory.id, alice, { can_view: true });
    const scoped = (await must(
      `/observatories/${observatory.id}/motd`,
      { method: "POST", token: owner.token, json: { title: "Roof", message: "Roof stuck", severity: "warning", deliveryType: "message" } },
      201,
    )) as Announcement;

    const items = await pending(alice);
    expect(items.map((item) => item.id)).toEqual([critical.id, scoped.id, unexpired.id, info.id]);
    expect(items.map((item) => item.severity)).toEqual(["critical", "warning", "info", "info"]);
    expect(items.every((item) => item.status === "active" && item.acknowledgedAt === null)).toBe(true);
    for (const absent of [acknowledged, cancelled, emailed, scheduled, forOthers]) expect(items.map((item) => item.id)).not.toContain(absent.id);
    expect(items.find((item) => item.id === scoped.id)).toMatchObject({ scope: "observatory", scopeId: observatory.id });
    expect(await pendingIds(ownsNothing)).toEqual([forOthers.id]);
    // The creator of the observatory announcement was acknowledged at creation.
    expect(await pendingIds(owner)).toEqual([]);
  });
});

describe("GET /api/v1/user/motd/pending", () => {
  it("answers JSON, the same list on every request and the same as tRPC's announcements.pending", async () => {
    const user = await createAccount(server);
    const created = await announce({ users: { ids: [user.id] } });
    const first = await server.request("/api/v1/user/motd/pending", { token: user.token });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await first.json()) as { items: Array<{ id: string }> };
    expect(body.items.map((item) => item.id)).toEqual([created.id]);
    // The second answer comes from the cache: byte for byte the same list.
    expect(await (await server.request("/api/v1/user/motd/pending", { token: user.token })).json()).toEqual(body);
    const trpc = await server.request("/trpc/announcements.pending", { token: user.token });
    expect(((await trpc.json()) as { result: { data: unknown } }).result.data).toEqual(body);
  });
});

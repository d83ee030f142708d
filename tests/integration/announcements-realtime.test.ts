import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, loginSession, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { startTestServer, type TestServer } from "../support/test-server";
import { openWebSocket, type OpenClient as Client, type Received } from "../support/ws-client";

/**
 * Announcements over /ws: `announcement.created` to the connected recipients only, at once
 * (or, when scheduled, once it starts), `announcement.counts` {id, acknowledged, pending} to its
 * senders and server admins on every acknowledgment, and `announcement.cancelled` to recipients.
 *
 * Absence is shown by order: a socket delivers in order and each event is published by a
 * request that has already returned, so once a later event reached a socket, an earlier one
 * meant for it would have arrived first.
 */

const ADMIN = { email: "motd-realtime-admin@example.com", password: "motd realtime admin password" };
let server: TestServer;
let admin: Account;
const clients: Client[] = [];
const api = jsonApi(() => server);

/** A signed-in WebSocket of `account`, open once the welcome has arrived. */
async function connect(account: Account): Promise<Client> {
  const client = await openWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${account.token}` });
  clients.push(client);
  return client;
}

const is = (type: string, id: string) => (message: Received) => message.type === type && (message.data as { id?: string } | undefined)?.id === id;
const typesFor = (client: Client, id: string) =>
  client.messages.filter((message) => (message.data as { id?: string } | undefined)?.id === id).map((message) => message.type);

const content = (title: string, fields: Record<string, unknown> = {}) => ({
  title,
  message: `${title}: details`,
  severity: "critical",
  deliveryType: "message",
  ...fields,
});
type Announcement = { id: string; recipientCount: number; startsAt: string };
const systemTo = async (users: Account[], title: string, fields: Record<string, unknown> = {}) =>
  (await api.must(
    "/api/v1/system/motd",
    { method: "POST", token: admin.token, json: { ...content(title, fields), targets: { users: { ids: users.map((user) => user.id) } } } },
    201,
  )) as Announcement;

/** Proves `client` has been sent everything published so far: a fresh announcement to its user arrives. */
async function flush(client: Client, user: Account) {
  const marker = await systemTo([user], "Marker");
  await client.waitFor(is("announcement.created", marker.id), `marker ${marker.id}`);
}

beforeAll(async () => {
  // With the worker: a scheduled announcement is announced by a job when it starts.
  server = await startTestServer({ ...roomyLimits, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  const { token } = await loginSession(server, ADMIN);
  admin = { id: (await api.must("/api/v1/auth/me", { token })).id, ...ADMIN, token };
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await server?.stop();
});

describe("announcement.created", () => {
  it("reaches every connected socket of each recipient at once, and no one else", async () => {
    const [alice, bob, carol] = await Promise.all([createAccount(server), createAccount(server), createAccount(server)]);
    const aliceWs = await connect(alice);
    const aliceSecond = await connect(alice);
    const bobWs = await connect(bob);
    const carolWs = await connect(carol);

    const created = await systemTo([alice, bob], "Outage tonight");
    const received = await aliceWs.waitFor(is("announcement.created", created.id), "created for alice");
    expect(received.data).toMatchObject({
      id: created.id,
      scope: "system",
      title: "Outage tonight",
      message: "Outage tonight: details",
      severity: "critical",
      status: "active",
      recipientCount: 2,
    });
    // Recipients are not told whom else it targets.
    expect(received.data).not.toHaveProperty("targets");
    await aliceSecond.waitFor(is("announcement.created", created.id), "created on alice's second socket");
    await bobWs.waitFor(is("announcement.created", created.id), "created for bob");

    await flush(carolWs, carol);
    expect(typesFor(carolWs, created.id)).toEqual([]);
  });

  it("reaches the recipients of a scoped announcement: everyone with access to the observatory", async () => {
    const [owner, viewer, orgOwner, orgMember, stranger] = await Promise.all([
      createAccount(server),
      createAccount(server),
      createAccount(server),
      createAccount(server),
      createAccount(server),
    ]);
    const observatory = await api.createObservatory(owner);
    await api.addObservatoryMember(owner, observatory.id, viewer, { can_view: true });
    const organization = await api.createOrganization(orgOwner);
    await api.addOrganizationMember(orgOwner, organization.id, orgMember);
    await api.addObservatoryOrganization(owner, observatory.id, organization.id, { can_view: true });
    const sockets = await Promise.all([viewer, orgMember, orgOwner, stranger].map(connect));
    const [viewerWs, orgMemberWs, orgOwnerWs, strangerWs] = sockets as [Client, Client, Client, Client];

    const created = (await api.must(
      `/observatories/${observatory.id}/motd`,
      { method: "POST", token: owner.token, json: content("Dome repair", { severity: "warning" }) },
      201,
    )) as Announcement;
    for (const socket of [viewerWs, orgMemberWs, orgOwnerWs]) {
      const received = await socket.waitFor(is("announcement.created", created.id), "scoped created");
      expect(received.data).toMatchObject({ id: created.id, scope: "observatory", scopeId: observatory.id, title: "Dome repair", severity: "warning" });
    }
    await flush(strangerWs, stranger);
    expect(typesFor(strangerWs, created.id)).toEqual([]);
  });

  it("is not sent for a scheduled announcement at creation, but once it starts", async () => {
    const [alice] = await Promise.all([createAccount(server)]);
    const aliceWs = await connect(alice);
    const far = await systemTo([alice], "Next month", { startsAt: new Date(Date.now() + 30 * 24 * 3600_000).toISOString() });
    const soon = await systemTo([alice], "In a moment", { startsAt: new Date(Date.now() + 5_000).toISOString() });
    await flush(aliceWs, alice);
    expect(typesFor(aliceWs, far.id)).toEqual([]);
    expect(typesFor(aliceWs, soon.id)).toEqual([]);
    const pendingBefore = (await api.must("/api/v1/user/motd/pending", { token: alice.token })).items.map((item: { id: string }) => item.id);
    expect(pendingBefore).not.toContain(far.id);

    // The start job announces it: it arrives then, and is pending from then on.
    const started = await aliceWs.waitFor(is("announcement.created", soon.id), "created at start");
    expect(started.data).toMatchObject({ id: soon.id, startsAt: soon.startsAt });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(soon.startsAt));
    expect((await api.must("/api/v1/user/motd/pending", { token: alice.token })).items.map((item: { id: string }) => item.id)).toContain(soon.id);
    expect(typesFor(aliceWs, far.id)).toEqual([]);
  });
});

describe("announcement.counts", () => {
  it("goes to the creator of a scoped announcement, its other senders and server admins on each acknowledgment, not to recipients", async () => {
    const [owner, manager, first, second] = await Promise.all([createAccount(server), createAccount(server), createAccount(server), createAccount(server)]);
    const organization = await api.createOrganization(owner);
    await api.addOrganizationMember(owner, organization.id, manager, { can_manage_members: true });
    await api.addOrganizationMember(owner, organization.id, first);
    await api.addOrganizationMember(owner, organization.id, second);
    const [managerWs, adminWs, firstWs, secondWs, ownerWs] = (await Promise.all([manager, admin, first, second, owner].map(connect))) as [
      Client,
      Client,
      Client,
      Client,
      Client,
    ];

    const base = `/organizations/${organization.id}/motd`;
    // Created by the members manager; the owner is a sender of the organization too.
    const created = (await api.must(base, { method: "POST", token: manager.token, json: content("Meeting moved") }, 201)) as Announcement;
    expect(created.recipientCount).toBe(4);
    await firstWs.waitFor(is("announcement.created", created.id), "created");
    await api.must(`${base}/${created.id}/acknowledge`, { method: "POST", token: first.token }, 200);

    const counts = (message: Received) => message.type === "announcement.counts" && (message.data as { id: string }).id === created.id;
    const pendingIs = (pending: number) => (message: Received) => counts(message) && (message.data as { pending: number }).pending === pending;
    const afterFirst = { id: created.id, acknowledged: 2, pending: 2 };
    for (const socket of [managerWs, adminWs, ownerWs])
      expect((await socket.waitFor(pendingIs(2), "counts after the first acknowledgment")).data).toEqual(afterFirst);

    // Acknowledging again is idempotent: no new counts. The next ones move them on.
    await api.must(`${base}/${created.id}/acknowledge`, { method: "POST", token: first.token }, 200);
    await api.must(`${base}/${created.id}/acknowledge`, { method: "POST", token: second.token }, 200);
    await api.must(`${base}/${created.id}/acknowledge`, { method: "POST", token: owner.token }, 200);
    const afterSecond = { id: created.id, acknowledged: 3, pending: 1 };
    const afterLast = { id: created.id, acknowledged: 4, pending: 0 };
    for (const socket of [managerWs, adminWs, ownerWs]) {
      await socket.waitFor(pendingIs(0), "final counts");
      const received = socket.messages.filter(counts).map((message) => message.data as typeof afterFirst);
      expect(received.sort((a, b) => a.acknowledged - b.acknowledged)).toEqual([afterFirst, afterSecond, afterLast]);
    }

    // The recipients who may not send hear of their own acknowledgment only.
    await flush(firstWs, first);
    await flush(secondWs, second);
    expect(firstWs.messages.filter(counts)).toEqual([]);
    expect(secondWs.messages.filter(counts)).toEqual([]);
    expect(typesFor(firstWs, created.id)).toContain("announcement.acknowledged");
  });

  it("goes to the server admin who created a system announcement", async () => {
    const [alice, bob] = await Promise.all([createAccount(server), createAccount(server)]);
    const adminWs = await connect(admin);
    const aliceWs = await connect(alice);
    const created = await systemTo([alice, bob], "Counted");
    await aliceWs.waitFor(is("announcement.created", created.id), "created");
    await api.must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    const received = await adminWs.waitFor(is("announcement.counts", created.id), "counts");
    expect(received.data).toEqual({ id: created.id, acknowledged: 1, pending: 1 });
    await flush(aliceWs, alice);
    expect(typesFor(aliceWs, created.id)).not.toContain("announcement.counts");
  });
});

describe("announcement.cancelled", () => {
  it("reaches the recipients with the reason, not others", async () => {
    const [owner, admin2, member, stranger] = await Promise.all([createAccount(server), createAccount(server), createAccount(server), createAccount(server)]);
    const project = await api.must("/projects", { method: "POST", token: owner.token, json: { name: "Cancelled night" } }, 201);
    await api.must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: admin2.email, role: "admin" } }, 201);
    await api.must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
    const [ownerWs, memberWs, strangerWs] = (await Promise.all([owner, member, stranger].map(connect))) as [Client, Client, Client];

    const base = `/projects/${project.id}/motd`;
    const created = (await api.must(base, { method: "POST", token: admin2.token, json: content("Observing run") }, 201)) as Announcement;
    await memberWs.waitFor(is("announcement.created", created.id), "created");
    const cancelled = await api.must(`${base}/${created.id}`, { method: "DELETE", token: admin2.token, json: { reason: "Clouds all week" } }, 200);

    for (const socket of [memberWs, ownerWs]) {
      const received = await socket.waitFor(is("announcement.cancelled", created.id), "cancelled");
      expect(received.data).toEqual({ id: created.id, reason: "Clouds all week", cancelledAt: cancelled.cancelledAt });
    }
    await flush(strangerWs, stranger);
    expect(typesFor(strangerWs, created.id)).toEqual([]);
  });
});

describe("announcement.delivery", () => {
  it("tells the senders when a recipient first sees the announcement, once", async () => {
    const [alice, bob] = await Promise.all([createAccount(server), createAccount(server)]);
    const adminWs = await connect(admin);
    const aliceWs = await connect(alice);
    const created = await systemTo([alice, bob], "Seen check");
    expect(await api.must("/api/v1/user/motd/seen", { method: "POST", token: alice.token, json: { ids: [created.id] } })).toEqual({ seen: 1 });
    await adminWs.waitFor(is("announcement.delivery", created.id), "delivery event for the sender");
    expect(await api.must("/api/v1/user/motd/seen", { method: "POST", token: alice.token, json: { ids: [created.id] } })).toEqual({ seen: 0 });
    const view = await api.must(`/api/v1/system/motd/${created.id}/recipients`, { token: admin.token });
    expect(view.counts).toMatchObject({ total: 2, seen: 1, acknowledged: 0 });
    // A recipient is not a sender: they hear nothing of others' views.
    await flush(aliceWs, alice);
    expect(typesFor(aliceWs, created.id)).toEqual(["announcement.created"]);
    // The second, no-op call published nothing: after a later event, still exactly one delivery event.
    const later = await systemTo([admin], "Later");
    await adminWs.waitFor(is("announcement.created", later.id), "later announcement");
    expect(typesFor(adminWs, created.id).filter((type) => type === "announcement.delivery")).toHaveLength(1);
  });
});

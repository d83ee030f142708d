import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

/**
 * Observatory, organization and project announcements through the public REST paths: who
 * receives them (everyone with access, resolved once at creation), what members and senders
 * see, acknowledgment, cancellation, and that an id is only found under its own scope.
 */

const ADMIN = { email: "motd-scoped-admin@example.com", password: "motd scoped admin password" };
let server: TestServer;
let admin: Account;
const { must, call, createOrganization, addOrganizationMember, createObservatory, addObservatoryMember, addObservatoryOrganization } = jsonApi(() => server);

interface Announcement {
  id: string;
  scope: string;
  scopeId: string | null;
  title: string;
  status: string;
  startsAt: string;
  createdBy: string;
  recipientCount: number;
  acknowledgedCount: number;
  cancellationReason: string | null;
  cancelledAt: string | null;
  acknowledgedAt?: string | null;
  targets?: unknown;
}
interface Recipient {
  userId: string;
  email: string;
  name: string;
  status: "pending" | "acknowledged";
  acknowledgedAt: string | null;
  emailedAt: string | null;
  seenAt: string | null;
  via: string;
}
interface RecipientsView {
  items: Recipient[];
  nextCursor: string | null;
  counts: { total: number; acknowledged: number; pending: number };
  cancellation: null | { reason: string; cancelledAt: string; cancelledBy: string | null };
}

type Kind = "observatory" | "organization" | "project";

/** One object of a kind with everyone who must receive its announcements, and those who must not. */
interface ScopeFixture {
  kind: Kind;
  /** `/observatories/{id}` and so on. */
  base: string;
  id: string;
  /** May send; a recipient. */
  sender: Account;
  /** A recipient who may not send. */
  member: Account;
  /** Exactly who receives an announcement of this object (the sender included). */
  recipients: Account[];
  /** Sees nothing of this object. */
  outsider: Account;
  /** Another object of the same kind where `sender` may send too. */
  siblingBase: string;
  /** Makes a new user able to see the object (after an announcement was created). */
  grantAccess(user: Account): Promise<unknown>;
}

const fixtures = {} as Record<Kind, ScopeFixture>;
/** Extra accounts of the scenario, for the kind-specific checks. */
const extra = {} as { orgMemberOfObservatory: Account; projectOrgManager: Account; projectOrgMember: Account };

const content = (fields: Record<string, unknown> = {}) => ({
  title: `Notice ${randomBytes(3).toString("hex")}`,
  message: "The dome will be closed for maintenance.",
  severity: "warning",
  deliveryType: "message",
  ...fields,
});

const announce = async (base: string, as: Account, fields: Record<string, unknown> = {}) =>
  (await must(`${base}/motd`, { method: "POST", token: as.token, json: content(fields) }, 201)) as Announcement;
const activeList = async (base: string, as: Account) =>
  ((await must(`${base}/motd`, { token: as.token })) as { items: Announcement[]; nextCursor: string | null }).items;
const history = async (base: string, as: Account, status?: string) =>
  ((await must(`${base}/motd/history${status ? `?status=${status}` : ""}`, { token: as.token })) as { items: Announcement[] }).items;
const recipientsOf = async (base: string, id: string, as: Account, query = "") =>
  (await must(`${base}/motd/${id}/recipients${query}`, { token: as.token })) as RecipientsView;
const acknowledge = async (base: string, id: string, as: Account) =>
  (await must(`${base}/motd/${id}/acknowledge`, { method: "POST", token: as.token }, 200)) as { acknowledgedAt: string };
const cancel = async (base: string, id: string, as: Account, reason: string) =>
  (await must(`${base}/motd/${id}`, { method: "DELETE", token: as.token, json: { reason } }, 200)) as Announcement;
const pendingIds = async (as: Account) => ((await must("/api/v1/user/motd/pending", { token: as.token })).items as Announcement[]).map((item) => item.id);
const ids = (accounts: Account[]) => accounts.map((account) => account.id).sort();

beforeAll(async () => {
  let adminToken: string;
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  const me = await must("/api/v1/auth/me", { token: adminToken });
  admin = { id: me.id, email: ADMIN.email, password: ADMIN.password, token: adminToken };
  const account = () => createAccount(server);

  // Observatory: owned by a user; a direct viewer; an organization member with can_view whose
  // owner and plain member see it through the organization.
  {
    const [owner, viewer, orgOwner, orgMember, outsider] = await Promise.all([account(), account(), account(), account(), account()]);
    const observatory = await createObservatory(owner);
    const sibling = await createObservatory(owner);
    await addObservatoryMember(owner, observatory.id, viewer, { can_view: true });
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, orgMember);
    await addObservatoryOrganization(owner, observatory.id, organization.id, { can_view: true });
    extra.orgMemberOfObservatory = orgMember;
    fixtures.observatory = {
      kind: "observatory",
      base: `/observatories/${observatory.id}`,
      id: observatory.id,
      sender: owner,
      member: viewer,
      recipients: [owner, viewer, orgOwner, orgMember],
      outsider,
      siblingBase: `/observatories/${sibling.id}`,
      grantAccess: (user) => addObservatoryMember(owner, observatory.id, user, { can_view: true }),
    };
  }

  // Organization: its owner (the sender), a plain member and a member who manages members.
  {
    const [owner, member, membersManager, outsider] = await Promise.all([account(), account(), account(), account()]);
    const organization = await createOrganization(owner);
    const sibling = await createOrganization(owner);
    await addOrganizationMember(owner, organization.id, member);
    await addOrganizationMember(owner, organization.id, membersManager, { can_manage_members: true });
    fixtures.organization = {
      kind: "organization",
      base: `/organizations/${organization.id}`,
      id: organization.id,
      sender: owner,
      member,
      recipients: [owner, member, membersManager],
      outsider,
      siblingBase: `/organizations/${sibling.id}`,
      grantAccess: (user) => addOrganizationMember(owner, organization.id, user),
    };
  }

  // Project: an organization's, owned by the organization's owner, with a project admin (the
  // sender) and a plain member. The organization's other members are not the project's.
  {
    const [owner, projectAdmin, member, orgManager, orgMember, outsider] = await Promise.all([
      account(),
      account(),
      account(),
      account(),
      account(),
      account(),
    ]);
    const organization = await createOrganization(owner);
    await addOrganizationMember(owner, organization.id, orgManager, { can_manage_projects: true });
    await addOrganizationMember(owner, organization.id, orgMember);
    const project = await must("/projects", { method: "POST", token: owner.token, json: { name: "Variable stars", organizationId: organization.id } }, 201);
    const sibling = await must("/projects", { method: "POST", token: owner.token, json: { name: "Comets" } }, 201);
    await must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: projectAdmin.email, role: "admin" } }, 201);
    await must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
    await must(`/projects/${sibling.id}/members`, { method: "POST", token: owner.token, json: { email: projectAdmin.email, role: "admin" } }, 201);
    extra.projectOrgManager = orgManager;
    extra.projectOrgMember = orgMember;
    fixtures.project = {
      kind: "project",
      base: `/projects/${project.id}`,
      id: project.id,
      sender: projectAdmin,
      member,
      recipients: [owner, projectAdmin, member],
      outsider,
      siblingBase: `/projects/${sibling.id}`,
      grantAccess: (user) => must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: user.email, role: "member" } }, 201),
    };
  }
});
afterAll(() => server?.stop());

describe.each(["observatory", "organization", "project"] as const)("%s announcements", (kind) => {
  let f: ScopeFixture;
  beforeAll(() => {
    f = fixtures[kind];
  });

  it("creates one for everyone with access, with scope and scopeId, the creator acknowledged at creation", async () => {
    const created = await announce(f.base, f.sender, { title: `Created ${kind}` });
    expect(created).toMatchObject({
      scope: kind,
      scopeId: f.id,
      title: `Created ${kind}`,
      severity: "warning",
      deliveryType: "message",
      status: "active",
      createdBy: f.sender.id,
      recipientCount: f.recipients.length,
      acknowledgedCount: 1,
      cancellationReason: null,
      cancelledAt: null,
    });
    expect(created.targets ?? null).toBeNull();

    const view = await recipientsOf(f.base, created.id, f.sender, "?sort=email");
    expect(view.items.map((item) => item.userId).sort()).toEqual(ids(f.recipients));
    expect(view.counts).toMatchObject({ total: f.recipients.length, acknowledged: 1, pending: f.recipients.length - 1 });
    expect(view.cancellation).toBeNull();
    for (const item of view.items) {
      expect(item.via).toBe("scope");
      expect(item.emailedAt).toBeNull();
      if (item.userId === f.sender.id) expect(item).toMatchObject({ status: "acknowledged", acknowledgedAt: expect.any(String) });
      else expect(item).toMatchObject({ status: "pending", acknowledgedAt: null });
    }
    // Sorted by email, as asked.
    const emails = view.items.map((item) => item.email);
    expect(emails).toEqual([...emails].sort());

    // Pending for every recipient but the creator; nobody else hears of it.
    expect(await pendingIds(f.sender)).not.toContain(created.id);
    for (const recipient of f.recipients.filter((account) => account.id !== f.sender.id)) expect(await pendingIds(recipient)).toContain(created.id);
    expect(await pendingIds(f.outsider)).not.toContain(created.id);
    expect(await pendingIds(admin)).not.toContain(created.id);
  });

  it("lists active announcements for members, each with the caller's own acknowledgedAt", async () => {
    const created = await announce(f.base, f.sender);
    const asMember = (await activeList(f.base, f.member)).find((item) => item.id === created.id);
    expect(asMember).toMatchObject({ id: created.id, scope: kind, scopeId: f.id, status: "active", acknowledgedAt: null });
    const asSender = (await activeList(f.base, f.sender)).find((item) => item.id === created.id);
    expect(asSender?.acknowledgedAt).toEqual(expect.any(String));

    const { acknowledgedAt } = await acknowledge(f.base, created.id, f.member);
    expect((await activeList(f.base, f.member)).find((item) => item.id === created.id)?.acknowledgedAt).toBe(acknowledgedAt);
    // Someone else's acknowledgment is not mine.
    const other = f.recipients.find((account) => account.id !== f.sender.id && account.id !== f.member.id)!;
    expect((await activeList(f.base, other)).find((item) => item.id === created.id)?.acknowledgedAt).toBeNull();

    await expectProblem(await server.request(`${f.base}/motd`, { token: f.outsider.token }), 404, "NOT_FOUND");
  });

  it("acknowledges idempotently for each recipient; the last one makes it acknowledged", async () => {
    const created = await announce(f.base, f.sender);
    const first = await acknowledge(f.base, created.id, f.member);
    expect(Date.parse(first.acknowledgedAt)).not.toBeNaN();
    expect((await acknowledge(f.base, created.id, f.member)).acknowledgedAt).toBe(first.acknowledgedAt);
    expect(await pendingIds(f.member)).not.toContain(created.id);
    // The creator was acknowledged at creation: acknowledging again changes nothing.
    const view = await recipientsOf(f.base, created.id, f.sender);
    const creatorAt = view.items.find((item) => item.userId === f.sender.id)!.acknowledgedAt;
    expect((await acknowledge(f.base, created.id, f.sender)).acknowledgedAt).toBe(creatorAt);
    expect((await recipientsOf(f.base, created.id, f.sender)).counts).toMatchObject({ acknowledged: 2, pending: f.recipients.length - 2 });

    expect((await history(f.base, f.sender, "active")).map((item) => item.id)).toContain(created.id);
    for (const recipient of f.recipients) await acknowledge(f.base, created.id, recipient);
    const done = (await history(f.base, f.sender, "acknowledged")).find((item) => item.id === created.id);
    expect(done).toMatchObject({ status: "acknowledged", acknowledgedCount: f.recipients.length, recipientCount: f.recipients.length });
    expect((await history(f.base, f.sender, "active")).map((item) => item.id)).not.toContain(created.id);
    const final = await recipientsOf(f.base, created.id, f.sender, "?status=pending");
    expect(final.items).toEqual([]);
    expect(final.counts).toMatchObject({ total: f.recipients.length, acknowledged: f.recipients.length, pending: 0 });
    // Still showing to members (acknowledged, not over), and no longer cancellable.
    expect((await activeList(f.base, f.member)).find((item) => item.id === created.id)).toMatchObject({ status: "acknowledged" });
    await expectProblem(
      await server.request(`${f.base}/motd/${created.id}`, { method: "DELETE", token: f.sender.token, json: { reason: "too late" } }),
      409,
      "INVALID_TRANSITION",
    );
  });

  it("cancels with a non-blank reason; history keeps it, members no longer see it, acknowledging is refused", async () => {
    const created = await announce(f.base, f.sender);
    await expectProblem(await server.request(`${f.base}/motd/${created.id}`, { method: "DELETE", token: f.sender.token }), 400, "REASON_REQUIRED");
    await expectProblem(
      await server.request(`${f.base}/motd/${created.id}`, { method: "DELETE", token: f.sender.token, json: { reason: " \t " } }),
      400,
      "REASON_REQUIRED",
    );
    expect((await history(f.base, f.sender, "active")).map((item) => item.id)).toContain(created.id);

    const cancelled = await cancel(f.base, created.id, f.sender, "  Wrong night  ");
    expect(cancelled).toMatchObject({
      id: created.id,
      scope: kind,
      scopeId: f.id,
      status: "cancelled",
      cancellationReason: "Wrong night",
      cancelledAt: expect.any(String),
    });
    expect((await activeList(f.base, f.member)).map((item) => item.id)).not.toContain(created.id);
    expect(await pendingIds(f.member)).not.toContain(created.id);
    expect((await history(f.base, f.sender, "cancelled")).find((item) => item.id === created.id)).toMatchObject({
      status: "cancelled",
      cancellationReason: "Wrong night",
    });
    expect((await history(f.base, f.sender, "active")).map((item) => item.id)).not.toContain(created.id);
    expect((await history(f.base, f.sender)).map((item) => item.id)).toContain(created.id);

    const view = await recipientsOf(f.base, created.id, f.sender);
    expect(view.cancellation).toEqual({
      reason: "Wrong night",
      cancelledAt: cancelled.cancelledAt,
      cancelledBy: f.sender.id,
      cancelledByName: expect.any(String),
    });
    await expectProblem(await server.request(`${f.base}/motd/${created.id}/acknowledge`, { method: "POST", token: f.member.token }), 409, "INVALID_TRANSITION");
    await expectProblem(
      await server.request(`${f.base}/motd/${created.id}`, { method: "DELETE", token: f.sender.token, json: { reason: "again" } }),
      409,
      "INVALID_TRANSITION",
    );
  });

  it("lets a server admin send, without making the admin a recipient", async () => {
    const created = await announce(f.base, admin);
    expect(created).toMatchObject({ scope: kind, scopeId: f.id, createdBy: admin.id, recipientCount: f.recipients.length, acknowledgedCount: 0 });
    expect((await recipientsOf(f.base, created.id, f.sender)).items.map((item) => item.userId).sort()).toEqual(ids(f.recipients));
    await expectProblem(await server.request(`${f.base}/motd/${created.id}/acknowledge`, { method: "POST", token: admin.token }), 404, "NOT_FOUND");
    expect((await cancel(f.base, created.id, admin, "Sent by mistake")).status).toBe("cancelled");
  });

  it("refuses a non-recipient's acknowledgment with 404, also for a member who joined after creation", async () => {
    const created = await announce(f.base, f.sender);
    const late = await createAccount(server);
    await expectProblem(await server.request(`${f.base}/motd/${created.id}/acknowledge`, { method: "POST", token: late.token }), 404, "NOT_FOUND");
    await f.grantAccess(late);
    // Recipients were resolved at creation: joining later does not make one.
    await expectProblem(await server.request(`${f.base}/motd/${created.id}/acknowledge`, { method: "POST", token: late.token }), 404, "NOT_FOUND");
    expect(await pendingIds(late)).not.toContain(created.id);
    const seen = (await activeList(f.base, late)).find((item) => item.id === created.id);
    expect(seen).toMatchObject({ id: created.id, status: "active" });
    expect(seen?.acknowledgedAt ?? null).toBeNull();
    const view = await recipientsOf(f.base, created.id, f.sender);
    expect(view.items.map((item) => item.userId)).not.toContain(late.id);
    expect(view.counts.total).toBe(f.recipients.length);
    // A new announcement reaches the newcomer.
    f.recipients.push(late);
    const next = await announce(f.base, f.sender);
    expect(next.recipientCount).toBe((await recipientsOf(f.base, next.id, f.sender)).counts.total);
    expect((await recipientsOf(f.base, next.id, f.sender)).items.map((item) => item.userId)).toContain(late.id);
    await acknowledge(f.base, next.id, late);
  });

  it("answers 404 under this path for an id of another object, another scope or a system announcement", async () => {
    const own = await announce(f.base, f.sender);
    const sibling = await announce(f.siblingBase, f.sender);
    const system = (await must(
      "/api/v1/system/motd",
      { method: "POST", token: admin.token, json: { ...content(), targets: { users: { ids: [f.sender.id, f.member.id] } } } },
      201,
    )) as Announcement;
    const otherKind = kind === "observatory" ? fixtures.organization : fixtures.observatory;
    const otherScope = await announce(otherKind.base, otherKind.sender);
    const foreign = [sibling.id, system.id, otherScope.id, `${own.id.slice(0, -4)}zzzz`];

    for (const id of foreign) {
      for (const as of [f.sender, admin]) {
        await expectProblem(await server.request(`${f.base}/motd/${id}/recipients`, { token: as.token }), 404, "NOT_FOUND");
        await expectProblem(
          await server.request(`${f.base}/motd/${id}`, { method: "DELETE", token: as.token, json: { reason: "not mine" } }),
          404,
          "NOT_FOUND",
        );
      }
      await expectProblem(await server.request(`${f.base}/motd/${id}/acknowledge`, { method: "POST", token: f.member.token }), 404, "NOT_FOUND");
    }
    // Each stays untouched where it belongs.
    expect((await history(f.siblingBase, f.sender)).find((item) => item.id === sibling.id)).toMatchObject({ status: sibling.status, cancelledAt: null });
    expect((await must(`/api/v1/system/motd/${system.id}/recipients`, { token: admin.token })).counts).toMatchObject({ acknowledged: 0 });
    expect((await history(otherKind.base, otherKind.sender)).find((item) => item.id === otherScope.id)).toMatchObject({ status: "active", cancelledAt: null });
    // The scope's own lists hold its own announcements only.
    const listed = [...(await activeList(f.base, f.sender)), ...(await history(f.base, f.sender))];
    expect(listed.every((item) => item.scope === kind && item.scopeId === f.id)).toBe(true);
    expect(listed.map((item) => item.id)).toContain(own.id);
    // And the right path still works for the member.
    await acknowledge(f.base, own.id, f.member);
    await acknowledge("/api/v1/system", system.id, f.member);
  });

  it("gives the recipients view the shape and parameters of the system view", async () => {
    const scoped = await announce(f.base, f.sender);
    const system = (await must(
      "/api/v1/system/motd",
      { method: "POST", token: admin.token, json: { ...content(), targets: { users: { ids: f.recipients.map((account) => account.id) } } } },
      201,
    )) as Announcement;
    await acknowledge(f.base, scoped.id, f.member);
    await acknowledge("/api/v1/system", system.id, f.member);
    await acknowledge("/api/v1/system", system.id, f.sender);

    const shapeOf = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(shapeOf)
        : value && typeof value === "object"
          ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shapeOf(inner)]))
          : typeof value;
    for (const query of ["", "?status=pending&sort=email&order=desc", "?status=acknowledged&sort=acknowledgedAt&order=asc", "?sort=name&limit=1"]) {
      const scopedView = await recipientsOf(f.base, scoped.id, f.sender, query);
      const systemView = await recipientsOf("/api/v1/system", system.id, admin, query);
      expect(Object.keys(scopedView).sort()).toEqual(Object.keys(systemView).sort());
      expect(Object.keys(scopedView.counts).sort()).toEqual(Object.keys(systemView.counts).sort());
      expect(scopedView.items.map(shapeOf)).toEqual(systemView.items.map(shapeOf));
    }
    const pending = await recipientsOf(f.base, scoped.id, f.sender, "?status=pending&sort=email&order=desc");
    expect(pending.items.every((item) => item.status === "pending")).toBe(true);
    const emails = pending.items.map((item) => item.email);
    expect(emails).toEqual([...emails].sort().reverse());
    expect(pending.counts).toMatchObject({ total: f.recipients.length, acknowledged: 2, pending: f.recipients.length - 2 });
    const acknowledged = await recipientsOf(f.base, scoped.id, f.sender, "?status=acknowledged");
    expect(acknowledged.items.map((item) => item.userId).sort()).toEqual(ids([f.sender, f.member]));
    const firstPage = await recipientsOf(f.base, scoped.id, f.sender, "?limit=1");
    expect(firstPage.items).toHaveLength(1);
    expect(firstPage.nextCursor).toEqual(expect.any(String));
    const secondPage = await recipientsOf(f.base, scoped.id, f.sender, `?limit=1&cursor=${firstPage.nextCursor}`);
    expect(secondPage.items[0]!.userId).not.toBe(firstPage.items[0]!.userId);
    expect((await call(`${f.base}/motd/${scoped.id}/recipients?status=everyone`, { token: f.sender.token })).status).toBe(400);
  });

  it("keeps a scheduled announcement out of the members' list and pending until it starts", async () => {
    const startsAt = new Date(Date.now() + 60 * 60_000).toISOString();
    const created = await announce(f.base, f.sender, { startsAt });
    expect(created).toMatchObject({ status: "active", startsAt });
    expect((await activeList(f.base, f.member)).map((item) => item.id)).not.toContain(created.id);
    expect(await pendingIds(f.member)).not.toContain(created.id);
    expect((await history(f.base, f.sender, "active")).find((item) => item.id === created.id)).toMatchObject({ startsAt });
    await expectProblem(await server.request(`${f.base}/motd/${created.id}/acknowledge`, { method: "POST", token: f.member.token }), 409, "INVALID_TRANSITION");
    expect((await cancel(f.base, created.id, f.sender, "Postponed")).status).toBe("cancelled");
  });

  it("validates the body: no targets, bounded title, expiry in the future", async () => {
    const post = (json: unknown) => server.request(`${f.base}/motd`, { method: "POST", token: f.sender.token, json });
    await expectProblem(await post({ ...content(), targets: { users: { all: true } } }), 400, "VALIDATION_FAILED");
    await expectProblem(await post(content({ title: "" })), 400, "VALIDATION_FAILED");
    await expectProblem(await post(content({ title: "x".repeat(201) })), 400, "VALIDATION_FAILED");
    await expectProblem(await post(content({ severity: "urgent" })), 400, "VALIDATION_FAILED");
    await expectProblem(await post(content({ expiresAt: new Date(Date.now() - 60_000).toISOString() })), 400, "VALIDATION_FAILED");
    expect((await history(f.base, f.sender)).some((item) => item.title === "")).toBe(false);
  });
});

describe("who receives a scoped announcement", () => {
  it("observatory: the owner, direct members and members of member organizations, each once", async () => {
    const f = fixtures.observatory;
    const created = await announce(f.base, f.sender);
    const view = await recipientsOf(f.base, created.id, f.sender);
    expect(view.items.map((item) => item.userId).sort()).toEqual(ids(f.recipients));
    expect(new Set(view.items.map((item) => item.userId)).size).toBe(view.items.length);
    // The organization member sees the observatory only through the organization, and receives it.
    expect(view.items.map((item) => item.userId)).toContain(extra.orgMemberOfObservatory.id);
    await acknowledge(f.base, created.id, extra.orgMemberOfObservatory);
  });

  it("observatory owned by an organization: every member of it, the owner included", async () => {
    const [orgOwner, member, manager, direct] = await Promise.all([createAccount(server), createAccount(server), createAccount(server), createAccount(server)]);
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, member);
    await addOrganizationMember(orgOwner, organization.id, manager, { can_manage_observatories: true });
    const observatory = await createObservatory(orgOwner, { name: "Organization scope", organizationId: organization.id });
    await addObservatoryMember(orgOwner, observatory.id, direct, { can_view: true });
    // A member of the organization and a direct member at once is still one recipient.
    await addObservatoryMember(orgOwner, observatory.id, member, { can_view: true });

    const created = await announce(`/observatories/${observatory.id}`, manager);
    expect(created).toMatchObject({ scope: "observatory", scopeId: observatory.id, recipientCount: 4, acknowledgedCount: 1 });
    const view = await recipientsOf(`/observatories/${observatory.id}`, created.id, orgOwner);
    expect(view.items.map((item) => item.userId).sort()).toEqual(ids([orgOwner, member, manager, direct]));
    expect(view.items.find((item) => item.userId === manager.id)?.status).toBe("acknowledged");
  });

  it("observatory: a member organization without any grant adds nobody", async () => {
    const [owner, orgOwner] = await Promise.all([createAccount(server), createAccount(server)]);
    const observatory = await createObservatory(owner);
    const organization = await createOrganization(orgOwner);
    await addObservatoryOrganization(owner, observatory.id, organization.id, { can_view: false, can_observe: false, can_operate: false, can_admin: false });
    await expectProblem(await server.request(`/observatories/${observatory.id}/motd`, { token: orgOwner.token }), 404, "NOT_FOUND");
    const created = await announce(`/observatories/${observatory.id}`, owner);
    expect(created).toMatchObject({ recipientCount: 1, acknowledgedCount: 1, status: "acknowledged" });
  });

  it("project: the owner and the project's members, not the rest of its organization", async () => {
    const f = fixtures.project;
    const created = await announce(f.base, f.sender);
    const view = await recipientsOf(f.base, created.id, f.sender);
    expect(view.items.map((item) => item.userId).sort()).toEqual(ids(f.recipients));
    // The organization's project manager sees the project and its announcements, without receiving them.
    const seen = (await activeList(f.base, extra.projectOrgManager)).find((item) => item.id === created.id);
    expect(seen).toMatchObject({ id: created.id });
    expect(seen?.acknowledgedAt ?? null).toBeNull();
    expect(await pendingIds(extra.projectOrgManager)).not.toContain(created.id);
    await expectProblem(
      await server.request(`${f.base}/motd/${created.id}/acknowledge`, { method: "POST", token: extra.projectOrgManager.token }),
      404,
      "NOT_FOUND",
    );
    await expectProblem(await server.request(`${f.base}/motd`, { token: extra.projectOrgMember.token }), 404, "NOT_FOUND");
  });

  it("organization: every member whatever their permissions", async () => {
    const f = fixtures.organization;
    const created = await announce(f.base, f.recipients[2]!);
    expect(created).toMatchObject({ createdBy: f.recipients[2]!.id, recipientCount: f.recipients.length, acknowledgedCount: 1 });
    const view = await recipientsOf(f.base, created.id, f.sender, "?status=acknowledged");
    expect(view.items.map((item) => item.userId)).toEqual([f.recipients[2]!.id]);
  });
});

import { createCaller, type TrpcContext } from "@meridian/api";
import { authenticateToken } from "@meridian/domain/auth";
import { AppError } from "@meridian/domain/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "motd-trpc-admin@example.com", password: "motd trpc admin password" };
let server: TestServer;
let adminToken: string;
let adminId: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  adminId = (await must("/api/v1/auth/me", { token: adminToken })).id;
});
afterAll(() => server?.stop());
const { must, createOrganization, addOrganizationMember } = jsonApi(() => server);

type Announcement = {
  id: string;
  scope: string;
  status: string;
  recipientCount: number;
  acknowledgedCount: number;
  cancellationReason: string | null;
  cancelledAt: string | null;
};
type RecipientsView = {
  items: Array<{ userId: string; status: string; acknowledgedAt: string | null; via: string }>;
  counts: { total: number; acknowledged: number; pending: number };
  cancellation: null | { reason: string; cancelledAt: string; cancelledBy: string | null };
};
interface TrpcError {
  message: string;
  data: { code: string; httpStatus: number; errors: Array<{ path: string; message: string }> | null };
}

const SYSTEM = { scope: "system" } as const;
const mutation = (procedure: string, input: unknown, token?: string) =>
  server.request(`/trpc/announcements.${procedure}`, { method: "POST", json: input, token });
const query = (procedure: string, input: unknown, token?: string) =>
  server.request(`/trpc/announcements.${procedure}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, { token });

async function ok<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  const text = await answer.text();
  expect(answer.status, text).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}
/** A tRPC error answer with the stable Meridian code in `data.code`, and no stack. */
async function fails(response: Promise<Response>, status: number, code: string): Promise<TrpcError> {
  const answer = await response;
  const text = await answer.text();
  expect(answer.status, text).toBe(status);
  expect(text).not.toMatch(/"stack"|\n\s+at |\.ts:\d+|node_modules/);
  const { error } = JSON.parse(text) as { error: TrpcError };
  expect(error.data).toMatchObject({ code, httpStatus: status });
  return error;
}

const content = (targets: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  title: "Dome closed",
  message: "High winds",
  severity: "warning",
  deliveryType: "message",
  targets,
  ...extra,
});
const createSystem = (targets: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ok<Announcement>(mutation("createSystem", content(targets, extra), adminToken));
const pendingIds = async (account: Account) =>
  (await ok<{ items: Array<{ id: string }> }>(query("pending", undefined, account.token))).items.map((item) => item.id);
const restListed = async (id: string) =>
  ((await must("/api/v1/system/motd?limit=200", { token: adminToken })).items as Announcement[]).find((item) => item.id === id);

describe("announcements.* over the tRPC HTTP endpoint", () => {
  it("creates, lists pending, acknowledges and shows recipients, on the same data as REST", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const created = await createSystem({ users: { ids: [alice.id, bob.id, adminId] } });
    expect(created).toMatchObject({ scope: "system", status: "active", recipientCount: 3, acknowledgedCount: 1 });
    expect(await restListed(created.id)).toEqual(created);

    expect(await pendingIds(alice)).toContain(created.id);
    expect((await must("/api/v1/user/motd/pending", { token: alice.token })).items.map((item: { id: string }) => item.id)).toEqual(await pendingIds(alice));

    const first = await ok<{ acknowledgedAt: string }>(mutation("acknowledge", { ref: SYSTEM, id: created.id }, alice.token));
    expect(await ok(mutation("acknowledge", { ref: SYSTEM, id: created.id }, alice.token))).toEqual(first);
    // Acknowledged over tRPC, seen the same over REST, and the other way round.
    expect(await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200)).toEqual(first);
    expect(await pendingIds(alice)).not.toContain(created.id);
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: bob.token }, 200);

    const view = await ok<RecipientsView>(query("recipients", { ref: SYSTEM, id: created.id, sort: "acknowledgedAt" }, adminToken));
    expect(view.counts).toMatchObject({ total: 3, acknowledged: 3, pending: 0 });
    expect(view.items.find((item) => item.userId === alice.id)).toMatchObject({ status: "acknowledged", acknowledgedAt: first.acknowledgedAt, via: "user" });
    expect(view).toEqual(await must(`/api/v1/system/motd/${created.id}/recipients?sort=acknowledgedAt`, { token: adminToken }));
    expect(await restListed(created.id)).toMatchObject({ status: "acknowledged", acknowledgedCount: 3 });
    expect((await ok<{ items: Announcement[] }>(query("listSystem", { status: "acknowledged" }, adminToken))).items.map((item) => item.id)).toContain(
      created.id,
    );
  });

  it("cancels with a reason only: REASON_REQUIRED, then cancelled, then INVALID_TRANSITION", async () => {
    const alice = await createAccount(server);
    const created = await createSystem({ users: { ids: [alice.id] } });
    for (const input of [
      { ref: SYSTEM, id: created.id },
      { ref: SYSTEM, id: created.id, reason: "" },
      { ref: SYSTEM, id: created.id, reason: "  \n" },
    ]) {
      const error = await fails(mutation("cancel", input, adminToken), 400, "REASON_REQUIRED");
      expect(error.data.errors).toEqual([{ path: "reason", message: expect.any(String) }]);
    }
    await fails(mutation("cancel", { ref: SYSTEM, id: created.id, reason: "a\u0000b" }, adminToken), 400, "VALIDATION_FAILED");
    await fails(mutation("cancel", { ref: SYSTEM, id: created.id, reason: "Not you" }, alice.token), 403, "FORBIDDEN");
    expect(await restListed(created.id)).toMatchObject({ status: "active" });

    const cancelled = await ok<Announcement>(mutation("cancel", { ref: SYSTEM, id: created.id, reason: "Winds dropped" }, adminToken));
    expect(cancelled).toMatchObject({ status: "cancelled", cancellationReason: "Winds dropped", cancelledAt: expect.any(String) });
    expect(await restListed(created.id)).toMatchObject({ status: "cancelled", cancellationReason: "Winds dropped", cancelledAt: cancelled.cancelledAt });
    const view = await ok<RecipientsView>(query("recipients", { ref: SYSTEM, id: created.id }, adminToken));
    expect(view.cancellation).toMatchObject({ reason: "Winds dropped", cancelledAt: cancelled.cancelledAt, cancelledBy: adminId });

    await fails(mutation("cancel", { ref: SYSTEM, id: created.id, reason: "Again" }, adminToken), 409, "INVALID_TRANSITION");
    await fails(mutation("acknowledge", { ref: SYSTEM, id: created.id }, alice.token), 409, "INVALID_TRANSITION");
    expect(await pendingIds(alice)).not.toContain(created.id);
  });

  it("refuses like REST: unknown ids listed, no recipients, non-recipients, non-admins, no credentials", async () => {
    const alice = await createAccount(server);
    const before = (await must("/api/v1/system/motd?limit=200", { token: adminToken })).items.length;
    const unknown = await fails(
      mutation("createSystem", content({ users: { ids: [alice.id, "usr_nope"] }, organizations: { ids: ["org_gone"] } }), adminToken),
      400,
      "VALIDATION_FAILED",
    );
    expect(unknown.data.errors).toEqual([
      { path: "targets.users.ids.1", message: expect.stringContaining("usr_nope") },
      { path: "targets.organizations.ids.0", message: expect.stringContaining("org_gone") },
    ]);
    await fails(mutation("createSystem", content({}), adminToken), 400, "NO_RECIPIENTS");
    await fails(mutation("createSystem", content({ projects: { all: true } }), adminToken), 400, "NO_RECIPIENTS");
    const invalid = await fails(
      mutation("createSystem", { ...content({ users: { ids: [alice.id] } }), title: "x".repeat(201), severity: "loud" }, adminToken),
      400,
      "VALIDATION_FAILED",
    );
    expect(invalid.data.errors?.map((error) => error.path).sort()).toEqual(["severity", "title"]);
    await fails(
      mutation("createSystem", { ...content({ users: { ids: [alice.id] } }), expiresAt: new Date(Date.now() - 60_000).toISOString() }, adminToken),
      400,
      "VALIDATION_FAILED",
    );
    await fails(mutation("createSystem", content({ users: { ids: [alice.id] } }), alice.token), 403, "FORBIDDEN");
    await fails(mutation("createSystem", content({ users: { ids: [alice.id] } })), 401, "UNAUTHENTICATED");
    expect((await must("/api/v1/system/motd?limit=200", { token: adminToken })).items.length).toBe(before);

    const created = await createSystem({ users: { ids: [alice.id] } });
    const stranger = await createAccount(server);
    await fails(mutation("acknowledge", { ref: SYSTEM, id: created.id }, stranger.token), 404, "NOT_FOUND");
    await fails(mutation("acknowledge", { ref: SYSTEM, id: "ann_missing" }, alice.token), 404, "NOT_FOUND");
    await fails(query("recipients", { ref: SYSTEM, id: created.id }, alice.token), 403, "FORBIDDEN");
    await fails(query("listSystem", {}, alice.token), 403, "FORBIDDEN");
    await fails(query("previewSystem", { targets: { users: { all: true } } }, alice.token), 403, "FORBIDDEN");
    await fails(query("targetOptions", { kind: "users" }, alice.token), 403, "FORBIDDEN");
    await fails(query("pending", undefined), 401, "UNAUTHENTICATED");
    await fails(mutation("acknowledge", { ref: SYSTEM, id: created.id }), 401, "UNAUTHENTICATED");
    await fails(mutation("acknowledge", { ref: { scope: "system", scopeId: "x" }, id: created.id }, alice.token), 400, "VALIDATION_FAILED");
    await fails(mutation("acknowledge", { ref: SYSTEM, id: "ann\u0000" }, alice.token), 400, "VALIDATION_FAILED");
    expect(await restListed(created.id)).toMatchObject({ status: "active", acknowledgedCount: 0 });
  });

  it("previews the count creation gives, targets combined, each user once", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const organization = await createOrganization(owner);
    await addOrganizationMember(owner, organization.id, member);
    const targets = { users: { ids: [member.id] }, organizations: { ids: [organization.id] } };
    const { recipientCount } = await ok<{ recipientCount: number }>(query("previewSystem", { targets }, adminToken));
    expect(recipientCount).toBe(2);
    const created = await createSystem(targets);
    expect(created.recipientCount).toBe(2);
    const view = await ok<RecipientsView>(query("recipients", { ref: SYSTEM, id: created.id, sort: "name" }, adminToken));
    expect(Object.fromEntries(view.items.map((item) => [item.userId, item.via]))).toEqual({ [member.id]: "user", [owner.id]: "organization" });
  });

  it("email delivery over tRPC: acknowledged for everyone at creation", async () => {
    const alice = await createAccount(server);
    const created = await createSystem({ users: { ids: [alice.id] } }, { deliveryType: "both" });
    expect(created).toMatchObject({ status: "acknowledged", recipientCount: 1, acknowledgedCount: 1 });
    expect(await pendingIds(alice)).not.toContain(created.id);
  });
});

describe("announcements.* through createCaller", () => {
  const contextFor = async (token: string): Promise<TrpcContext> => {
    const deps = server.server.runtime.deps;
    const principal = await authenticateToken({ deps, token });
    expect(principal).toBeDefined();
    return {
      deps,
      principal,
      credentialSource: "bearer",
      token,
      client: { ip: "203.0.113.9", userAgent: "vitest" },
      requestId: "announcements-caller",
      secureCookies: false,
      linkOrigin: "http://127.0.0.1",
      setSessionToken: () => undefined,
    };
  };
  async function rejection(promise: Promise<unknown>) {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught as { code: string; cause?: unknown },
    );
    expect(error, "the call should have failed").toBeDefined();
    return error!;
  }

  it("runs the same lifecycle as REST", async () => {
    const alice = await createAccount(server);
    const admin = createCaller(await contextFor(adminToken));
    const asAlice = createCaller(await contextFor(alice.token));
    const created = await admin.announcements.createSystem({
      title: "Caller",
      message: "Via createCaller",
      severity: "critical",
      deliveryType: "message",
      targets: { users: { ids: [alice.id] } },
    });
    expect(created).toMatchObject({ status: "active", recipientCount: 1 });
    expect((await asAlice.announcements.pending()).items.map((item) => item.id)).toContain(created.id);
    expect((await must("/api/v1/user/motd/pending", { token: alice.token })).items.map((item: { id: string }) => item.id)).toContain(created.id);

    const reasonless = await rejection(admin.announcements.cancel({ ref: { scope: "system" }, id: created.id, reason: " " }));
    expect(reasonless.code).toBe("BAD_REQUEST");
    expect(reasonless.cause).toBeInstanceOf(AppError);
    expect((reasonless.cause as AppError).code).toBe("REASON_REQUIRED");

    const { acknowledgedAt } = await asAlice.announcements.acknowledge({ ref: { scope: "system" }, id: created.id });
    expect(await asAlice.announcements.acknowledge({ ref: { scope: "system" }, id: created.id })).toEqual({ acknowledgedAt });
    const view = await admin.announcements.recipients({ ref: { scope: "system" }, id: created.id });
    expect(view.counts).toMatchObject({ total: 1, acknowledged: 1, pending: 0 });
    expect(await restListed(created.id)).toMatchObject({ status: "acknowledged" });

    const late = await rejection(admin.announcements.cancel({ ref: { scope: "system" }, id: created.id, reason: "Too late" }));
    expect(late.code).toBe("CONFLICT");
    expect((late.cause as AppError).code).toBe("INVALID_TRANSITION");
    const forbidden = await rejection(
      asAlice.announcements.createSystem({ title: "No", message: "No", severity: "info", deliveryType: "message", targets: { users: { all: true } } }),
    );
    expect(forbidden.code).toBe("FORBIDDEN");
    expect((forbidden.cause as AppError).code).toBe("FORBIDDEN");
  });
});

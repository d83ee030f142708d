import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { trpcQuery } from "../support/list-cursors";
import type { TestServer } from "../support/test-server";

/** Admin → Users filtered by role and status (`GET /api/v1/admin/users?role&status`; tRPC `admin.users`). */
const ADMIN = { email: "users-filter-admin@example.com", password: "users filter admin password" };
let server: TestServer;
let adminToken: string;
const { must } = jsonApi(() => server);

interface Listed {
  id: string;
  roles: string[];
  disabled: boolean;
}
interface UserPage {
  items: Listed[];
  nextCursor: string | null;
  enabledServerAdmins: number;
}

// Every account of this file's names holds the tag, so `q` narrows a list to them alone.
const tag = `filter${randomBytes(4).toString("hex")}`;
/** Created in this order, so the list (oldest first) shows them so. */
let plain: Account;
let admin: Account;
let disabledAdmin: Account;
let disabledOne: Account;
let disabledTwo: Account;
let adminId: string;

const update = (userId: string, json: unknown) => must(`/api/v1/admin/users/${userId}`, { method: "PUT", token: adminToken, json }, 200);
type Query = Record<string, string | number>;
const list = async (query: Query, token = adminToken) =>
  (await must(`/api/v1/admin/users?${new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]))}`, { token }, 200)) as UserPage;
const ids = (page: UserPage) => page.items.map((item) => item.id);
const usersRequest = (query: string, token?: string) => server.request(`/api/v1/admin/users?${query}`, { token });

/** Every page of a list read `limit` at a time, following each nextCursor. */
async function walk(query: Query, limit: number) {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await list({ ...query, limit, ...(cursor ? { cursor } : {}) });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    seen.push(...ids(page));
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor);
  return { seen, pages };
}

beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  adminId = (await must("/api/v1/auth/me", { token: adminToken }, 200)).id;
  plain = await createAccount(server, { name: `Plain ${tag}` });
  admin = await createAccount(server, { name: `Admin ${tag}` });
  disabledAdmin = await createAccount(server, { name: `Disabled admin ${tag}` });
  disabledOne = await createAccount(server, { name: `Disabled one ${tag}` });
  disabledTwo = await createAccount(server, { email: `${tag}-disabled-two@example.com` });
  await update(admin.id, { roles: ["serverAdmin"] });
  await update(disabledAdmin.id, { roles: ["serverAdmin"] });
  for (const account of [disabledAdmin, disabledOne, disabledTwo]) await update(account.id, { disabled: true });
});
afterAll(async () => {
  await server?.stop();
});

describe("a server admin filters the list of accounts by role and status", () => {
  it("keeps the accounts of the role or the status asked for, alone and with q, and counts enabled admins on the whole server", async () => {
    const adminsOnly = await list({ role: "serverAdmin" });
    expect(ids(adminsOnly)).toEqual([adminId, admin.id, disabledAdmin.id]);
    expect(adminsOnly.items.every((item) => item.roles.includes("serverAdmin"))).toBe(true);
    const disabled = await list({ status: "disabled" });
    expect(ids(disabled)).toEqual([disabledAdmin.id, disabledOne.id, disabledTwo.id]);
    expect(disabled.items.every((item) => item.disabled)).toBe(true);
    const active = await list({ status: "active" });
    expect(ids(active)).toEqual([adminId, plain.id, admin.id]);
    expect(active.items.every((item) => !item.disabled)).toBe(true);
    expect(ids(await list({ role: "serverAdmin", status: "active" }))).toEqual([adminId, admin.id]);
    expect(ids(await list({ role: "serverAdmin", status: "disabled" }))).toEqual([disabledAdmin.id]);

    // With q (in any case): both must hold.
    expect(ids(await list({ q: tag.toUpperCase(), role: "serverAdmin" }))).toEqual([admin.id, disabledAdmin.id]);
    expect(ids(await list({ q: tag, status: "disabled" }))).toEqual([disabledAdmin.id, disabledOne.id, disabledTwo.id]);
    expect(ids(await list({ q: `${tag}-disabled`, status: "disabled" }))).toEqual([disabledTwo.id]);
    expect(ids(await list({ q: tag, status: "active" }))).toEqual([plain.id, admin.id]);
    expect(ids(await list({ q: "Plain", role: "serverAdmin" }))).toEqual([]);
    expect(ids(await list({ q: ADMIN.email, status: "disabled" }))).toEqual([]);

    // The count is the server's, whatever the filters leave out of the page.
    const counted: Query[] = [{}, { role: "serverAdmin" }, { status: "disabled" }, { q: "Plain", status: "active" }, { status: "disabled", limit: 1 }];
    for (const query of counted) expect((await list(query)).enabledServerAdmins).toBe(2);

    // An account enabled again leaves the disabled list at once.
    await update(disabledTwo.id, { disabled: false });
    expect(ids(await list({ q: tag, status: "disabled" }))).toEqual([disabledAdmin.id, disabledOne.id]);
    expect(ids(await list({ q: tag, status: "active" }))).toEqual([plain.id, admin.id, disabledTwo.id]);
    await update(disabledTwo.id, { disabled: true });
  });

  it("pages through a filtered list two at a time: every account once, in order, none missing", async () => {
    const filtered: Query[] = [
      { role: "serverAdmin" },
      { status: "disabled" },
      { status: "active" },
      { q: tag, status: "disabled" },
      { q: tag, role: "serverAdmin" },
    ];
    for (const query of filtered) {
      const whole = ids(await list({ ...query, limit: 200 }));
      const { seen, pages } = await walk(query, 2);
      expect(seen).toEqual(whole);
      expect(new Set(seen).size).toBe(seen.length);
      expect(pages).toBe(Math.max(1, Math.ceil(whole.length / 2)));
    }
    // A cursor is a place in the id order, whatever filters the page after it is asked with.
    const first = await list({ limit: 2 });
    expect(ids(first)).toEqual([adminId, plain.id]);
    expect(ids(await list({ status: "disabled", limit: 2, cursor: first.nextCursor! }))).toEqual([disabledAdmin.id, disabledOne.id]);
  });

  it("refuses an unknown role or status with 400 VALIDATION_FAILED naming the field", async () => {
    const refused = [
      ["role=admin", "role"],
      ["role=ServerAdmin", "role"],
      ["role=", "role"],
      ["status=blocked", "status"],
      ["status=Disabled", "status"],
      ["status=", "status"],
      ["q=x&status=enabled&limit=2", "status"],
      ["roles=serverAdmin", "roles"],
    ] as const;
    for (const [query, field] of refused) {
      const problem = await expectProblem(await usersRequest(query, adminToken), 400, "VALIDATION_FAILED");
      expect({ query, paths: problem.errors?.map((error) => error.path) }).toEqual({ query, paths: [field] });
    }
    const both = await expectProblem(await usersRequest("role=owner&status=gone", adminToken), 400, "VALIDATION_FAILED");
    expect(both.errors?.map((error) => error.path).sort()).toEqual(["role", "status"]);
  });

  it("answers 401 without credentials before it looks at the input, and 403 to an account that is not a server admin", async () => {
    for (const query of ["role=serverAdmin", "status=disabled", "status=blocked", "role=owner&limit=0"])
      await expectProblem(await usersRequest(query), 401, "UNAUTHENTICATED");
    for (const query of ["role=serverAdmin", "status=disabled", "status=blocked"])
      await expectProblem(await usersRequest(query, plain.token), 403, "FORBIDDEN");
    // A disabled server admin's session ended with the change; a new one cannot be made (403 ACCOUNT_DISABLED), so it lists nothing either.
    await expectProblem(await usersRequest("status=disabled", disabledAdmin.token), 401, "UNAUTHENTICATED");
  });

  it("tRPC admin.users filters and pages with the same input, and refuses the same things", async () => {
    const call = (input: unknown, token: string | undefined) => server.request(trpcQuery("admin.users", input), { token });
    const first = await trpcData<UserPage>(await call({ q: tag, status: "disabled", limit: 2 }, adminToken));
    expect(ids(first)).toEqual([disabledAdmin.id, disabledOne.id]);
    expect(first.enabledServerAdmins).toBe(2);
    const second = await trpcData<UserPage>(await call({ q: tag, status: "disabled", limit: 2, cursor: first.nextCursor }, adminToken));
    expect(second).toMatchObject({ items: [{ id: disabledTwo.id }], nextCursor: null });
    expect(ids(await trpcData<UserPage>(await call({ role: "serverAdmin", status: "active" }, adminToken)))).toEqual([adminId, admin.id]);
    expect(ids(await trpcData<UserPage>(await call({ role: "serverAdmin" }, adminToken)))).toEqual(ids(await list({ role: "serverAdmin" })));

    const refusal = async (response: Response) => ({
      status: response.status,
      ...((await response.json()) as { error: { data: { code: string; errors?: Array<{ path: string }> } } }).error.data,
    });
    for (const [input, field] of [
      [{ role: "admin" }, "role"],
      [{ status: "blocked" }, "status"],
      [{ status: true }, "status"],
      [{ disabled: true }, "disabled"],
    ] as const)
      expect(await refusal(await call(input, adminToken))).toMatchObject({ status: 400, code: "VALIDATION_FAILED", errors: [{ path: field }] });
    expect(await refusal(await call({ status: "blocked" }, undefined))).toMatchObject({ status: 401, code: "UNAUTHENTICATED" });
    expect(await refusal(await call({ role: "serverAdmin" }, plain.token))).toMatchObject({ status: 403, code: "FORBIDDEN" });
  });
});

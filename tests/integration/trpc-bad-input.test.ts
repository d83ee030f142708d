import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcErrorCode } from "../support/json-api";
import { callerOver } from "../support/test-runtime";
import type { TestServer } from "../support/test-server";

/**
 * REST refuses NUL anywhere in a URL, but a tRPC query's input is JSON in `?input=`, where NUL is
 * the escape `\u0000`, never `%00`: each text of a query's input carries its own rule, cursors and
 * filters included, so PostgreSQL never sees what it cannot hold.
 */
const ADMIN = { email: "trpc-bad-input-admin@example.com", password: "trpc bad input admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
let observatoryId: string;
let organizationId: string;
const { must, trpcMutation, createOrganization } = jsonApi(() => server);

beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  owner = await createAccount(server);
  observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Audit scope" } }, 201)) as { id: string }).id;
  organizationId = (await createOrganization(owner)).id;
});
afterAll(() => server?.stop());

const query = (procedure: string, input: unknown, token: string) =>
  server.request(`/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token });

const nul = "a\u0000b";

describe("NUL in a tRPC query input is a 400, not a 500", () => {
  const cases: Array<[string, () => unknown, () => string]> = [
    ["observatories.list", () => ({ cursor: nul }), () => owner.token],
    ["observatories.history", () => ({ id: observatoryId, cursor: nul }), () => owner.token],
    ["organizations.audit", () => ({ id: organizationId, cursor: nul }), () => owner.token],
    ["admin.audit", () => ({ cursor: nul }), () => adminToken],
    ["admin.jobs", () => ({ cursor: nul }), () => adminToken],
    ["admin.jobs", () => ({ kind: nul }), () => adminToken],
    ["integrity.scans", () => ({ cursor: nul }), () => adminToken],
    ["announcements.listSystem", () => ({ cursor: nul }), () => adminToken],
  ];
  for (const [procedure, input, token] of cases) {
    it(`${procedure} ${JSON.stringify(Object.keys(input() as object).filter((key) => key !== "id"))}`, async () => {
      const response = await query(procedure, input(), token());
      const body = (await response.json()) as { error?: { message?: string; data?: { code?: string; errors?: Array<{ path: string }> } } };
      expect({ status: response.status, code: body.error?.data?.code }).toEqual({ status: 400, code: "VALIDATION_FAILED" });
      // Refused by the field's rule, which names it, not by PostgreSQL.
      expect(body.error?.data?.errors?.map((error) => error.path)).toEqual(Object.keys(input() as object).filter((key) => key !== "id"));
    });
  }
});

/** A project as both faces answer it. */
type Project = { id: string; name: string; status: string; ownerId: string; organizationId: string | null; createdAt: string };

// From project-projects, whose domain rules run through the caller on a runtime without HTTP: this one is about tRPC over HTTP too.
describe("tRPC projects procedures", () => {
  it("go through the same domain functions, over HTTP and through createCaller", async () => {
    const owner = await createAccount(server);
    const outsider = await createAccount(server);
    const project = await trpcMutation<Project>("projects.create", { token: owner.token, json: { name: "Via tRPC" } });
    expect(await must(`/projects/${project.id}`, { token: owner.token }, 200)).toMatchObject({ id: project.id, name: "Via tRPC", ownerId: owner.id });

    const invalid = await server.request("/trpc/projects.update", { method: "POST", token: owner.token, json: { id: project.id, update: { status: "done" } } });
    expect(invalid.status).toBe(400);
    expect(await trpcErrorCode(invalid)).toBe("VALIDATION_FAILED");

    // In-process caller over the same deps as the running server.
    const deps = server.server.runtime.deps;
    const asOwner = callerOver(deps, owner.token);
    expect(await asOwner.projects.update({ id: project.id, update: { status: "completed" } })).toMatchObject({ id: project.id, status: "completed" });
    const asOutsider = callerOver(deps, outsider.token);
    await expect(asOutsider.projects.get({ id: project.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await must(`/projects/${project.id}`, { token: owner.token }, 200)).status).toBe("completed");
  });
});

import { randomUUID } from "node:crypto";
import { observationsCollection } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectOneCreatedOneRefused, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { copyRow } from "../support/row-copies";
import { holdRows, queuedBehindHold } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "observations-api-admin@example.com", password: "observations api admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
let stranger: Account;
let member: Account;
let viewer: Account;
let operator: Account;
let observatoryId: string;
let otherObservatoryId: string;
let projectId: string;
let observatoryKey: string;
let otherKey: string;
beforeAll(async () => {
  // No worker and no connected observatory: nothing is dispatched behind the tests' backs.
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  const accounts = await Promise.all(Array.from({ length: 5 }, () => createAccount(server)));
  [owner, stranger, member, viewer, operator] = accounts as [Account, Account, Account, Account, Account];
  observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Main scope" } }, 201)) as { id: string }).id;
  otherObservatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Other scope" } }, 201)) as { id: string }).id;
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Survey" } }, 201)) as { id: string }).id;
  await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
  await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: viewer.email, role: "member" } }, 201);
  await must(
    `/observatories/${observatoryId}/members`,
    { method: "POST", token: owner.token, json: { email: viewer.email, permissions: { can_view: true } } },
    201,
  );
  await must(
    `/observatories/${observatoryId}/members`,
    { method: "POST", token: owner.token, json: { email: operator.email, permissions: { can_operate: true } } },
    201,
  );
  observatoryKey = (
    (await must(`/observatories/${observatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as { key: string }
  ).key;
  otherKey = (
    (await must(`/observatories/${otherObservatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as { key: string }
  ).key;
});
afterAll(() => server?.stop());
const { must, call } = jsonApi(() => server);

const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 30, count: 2, binning: 1 }] };
const body = (fields: Record<string, unknown> = {}) => ({ name: `Obs ${randomUUID().slice(0, 6)}`, projectId, observatoryId, targets: [target], ...fields });
const submit = async (fields: Record<string, unknown> = {}, token = owner.token) =>
  (await must("/observations", { method: "POST", token, json: body(fields) }, 201)) as { id: string; status: string };
const move = (id: string, status: string, token = owner.token) => call(`/observations/${id}/status`, { method: "POST", token, json: { status } });

describe("submitting an observation", () => {
  it("stores it pending with the contract's defaults", async () => {
    const created = await submit({ priority: 10 });
    expect(created).toMatchObject({
      status: "pending",
      priority: 10,
      type: "flexible",
      ownerId: owner.id,
      bypassDarkness: false,
      fixedTimeStart: null,
      isMonitoring: false,
      targets: [{ name: "Vega", epoch: "J2000" }],
      constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
    });
    const read = await must(`/observations/${created.id}`, { token: member.token }, 200);
    expect(read).toMatchObject({ id: created.id });
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["RA of 360", { targets: [{ ...target, ra: 360 }] }, "targets.0.ra"],
    ["negative RA", { targets: [{ ...target, ra: -0.1 }] }, "targets.0.ra"],
    ["Dec beyond 90", { targets: [{ ...target, dec: 90.5 }] }, "targets.0.dec"],
    ["priority 11", { priority: 11 }, "priority"],
    ["priority 0", { priority: 0 }, "priority"],
    ["no target", { targets: [] }, "targets"],
    ["a target without exposures", { targets: [{ ...target, exposures: [] }] }, "targets.0.exposures"],
    [
      "a zero-second exposure",
      { targets: [{ ...target, exposures: [{ filter: "V", exposureSeconds: 0, count: 1, binning: 1 }] }] },
      "targets.0.exposures.0.exposureSeconds",
    ],
    ["binning 5", { targets: [{ ...target, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 5 }] }] }, "targets.0.exposures.0.binning"],
    ["an unknown twilight", { constraints: { twilight: "golden" } }, "constraints.twilight"],
    ["fixed times out of order", { fixedTimeStart: "2026-12-01T02:00:00.000Z", fixedTimeEnd: "2026-12-01T01:00:00.000Z" }, "fixedTimeEnd"],
    ["a fixed_time observation without its start", { type: "fixed_time" }, "fixedTimeStart"],
    ["a time_based observation without a start or an end", { type: "time_based" }, "fixedTimeStart"],
    ["an unknown field", { colour: "blue" }, ""],
    // Texts PostgreSQL cannot store (NUL, lone surrogates): refused, not a failed insert's 500.
    ["a target name holding NUL", { targets: [{ ...target, name: "Ve\u0000ga" }] }, "targets.0.name"],
    ["a target name holding a lone surrogate", { targets: [{ ...target, name: "Ve\ud800ga" }] }, "targets.0.name"],
    ["an epoch holding NUL", { targets: [{ ...target, epoch: "J2000\u0000" }] }, "targets.0.epoch"],
    [
      "a filter holding a lone surrogate",
      { targets: [{ ...target, exposures: [{ filter: "\udfffV", exposureSeconds: 1, count: 1, binning: 1 }] }] },
      "targets.0.exposures.0.filter",
    ],
  ];
  for (const [what, fields, path] of invalid)
    it(`refuses ${what} (400 VALIDATION_FAILED)`, async () => {
      const problem = await expectProblem(
        await server.request("/observations", { method: "POST", token: owner.token, json: body(fields) }),
        400,
        "VALIDATION_FAILED",
      );
      if (path) expect(problem.errors?.map((error) => error.path)).toContain(path);
    });
  it("says an end before the start in a person's words, naming the fields as the wizard labels them, at fixedTimeEnd", async () => {
    const fields = { type: "fixed_time", fixedTimeStart: "2031-12-01T02:00:00.000Z", fixedTimeEnd: "2031-12-01T01:00:00.000Z" };
    const problem = await expectProblem(
      await server.request("/observations", { method: "POST", token: owner.token, json: body(fields) }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors).toEqual([{ path: "fixedTimeEnd", message: "Window end must be after the window start." }]);
  });
  it("refuses an edit that leaves a time_based observation without a start or an end, judged with what it keeps", async () => {
    const created = await submit();
    const edit = (json: Record<string, unknown>) => server.request(`/observations/${created.id}`, { method: "PUT", token: owner.token, json });
    const problem = await expectProblem(await edit({ type: "time_based" }), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ path: "fixedTimeStart", message: "A time-based observation needs a window start, a window end or both." }]);
    expect(await must(`/observations/${created.id}`, { token: owner.token })).toMatchObject({ type: "flexible" });
    const end = new Date(Date.now() + 86_400_000).toISOString();
    expect(
      await must(`/observations/${created.id}`, { method: "PUT", token: owner.token, json: { type: "time_based", fixedTimeEnd: end } }, 200),
    ).toMatchObject({
      type: "time_based",
      fixedTimeEnd: end,
    });
    // The end it keeps is a bound: a later edit that names only the type stands.
    expect(await must(`/observations/${created.id}`, { method: "PUT", token: owner.token, json: { type: "time_based", priority: 7 } }, 200)).toMatchObject({
      priority: 7,
    });
    await expectProblem(await edit({ fixedTimeEnd: null }), 400, "VALIDATION_FAILED");
  });

  it("refuses to clone or edit a time_based observation stored without a start or an end (before the rule), and keeps it as it was", async () => {
    const created = await submit();
    await observationsCollection.update(server.server.runtime.deps.db, created.id, (doc) => ({ ...doc, type: "time_based" }));
    const bound = [{ path: "fixedTimeStart", message: "A time-based observation needs a window start, a window end or both." }];
    const clone = await expectProblem(
      await server.request(`/observations/${created.id}/clone`, { method: "POST", token: owner.token }),
      400,
      "VALIDATION_FAILED",
    );
    expect(clone.errors).toEqual(bound);
    const edit = await server.request(`/observations/${created.id}`, { method: "PUT", token: owner.token, json: { priority: 9 } });
    expect((await expectProblem(edit, 400, "VALIDATION_FAILED")).errors).toEqual(bound);
    expect(await must(`/observations/${created.id}`, { token: owner.token })).toMatchObject({ type: "time_based", priority: 5 });
  });

  it("refuses the same unstorable target texts when an observation is edited, and keeps it as it was", async () => {
    const created = await submit();
    const problem = await expectProblem(
      await server.request(`/observations/${created.id}`, { method: "PUT", token: owner.token, json: { targets: [{ ...target, name: "a\u0000b" }] } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors?.map((error) => error.path)).toContain("targets.0.name");
    expect(await must(`/observations/${created.id}`, { token: owner.token })).toMatchObject({ targets: [{ name: "Vega" }] });
  });

  it("needs can_observe on the observatory and membership of an active project", async () => {
    // A project member who cannot see the observatory: it does not exist for them.
    await expectProblem(await server.request("/observations", { method: "POST", token: member.token, json: body() }), 404, "NOT_FOUND");
    // A viewer (can_view only) who is a project member.
    await expectProblem(await server.request("/observations", { method: "POST", token: viewer.token, json: body() }), 403, "FORBIDDEN");
    // An operator of the observatory who is not in the project.
    await expectProblem(await server.request("/observations", { method: "POST", token: operator.token, json: body() }), 404, "NOT_FOUND");
    await expectProblem(await server.request("/observations", { method: "POST", token: stranger.token, json: body() }), 404, "NOT_FOUND");
    const paused = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Paused" } }, 201)) as { id: string };
    await must(`/projects/${paused.id}`, { method: "PUT", token: owner.token, json: { status: "paused" } }, 200);
    await expectProblem(
      await server.request("/observations", { method: "POST", token: owner.token, json: body({ projectId: paused.id }) }),
      409,
      "PROJECT_NOT_ACTIVE",
    );
  });
});

describe("a project archived and deleted while an observation is created in it", () => {
  // Observations go into active projects, and only an archived project may be deleted: a creation that read its
  // project as active must not commit a pending observation into a project archived and deleted in the meantime.
  it("never leaves a pending observation in a deleted project: the creation finds it gone (404)", async () => {
    const { observatory, project } = await observingNetwork(must, owner);
    // Parks the creation after its reads (the project, still active), at its hold on the observatory.
    const hold = await holdRows(server.databaseUrl, `select id from observatories where id = '${observatory.id}' for update`);
    try {
      const creation = call("/observations", { method: "POST", token: owner.token, json: body({ projectId: project.id, observatoryId: observatory.id }) });
      await until("the creation to wait at the observatory", async () => (await hold.waiters()) >= 1, { intervalMs: 5 });
      expect((await call(`/projects/${project.id}`, { method: "PUT", token: owner.token, json: { status: "archived" } })).status).toBe(200);
      expect((await call(`/projects/${project.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
      await hold.release();
      const created = await creation;
      expect({ status: created.status, code: created.body.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    } finally {
      await hold.release();
    }
    expect((await must(`/observations?observatoryId=${observatory.id}&limit=10`, { token: owner.token }, 200)).items).toEqual([]);
  });
});

describe("who may read and change an observation", () => {
  it("lets the owner, project members and observatory viewers read it, and nobody else", async () => {
    const created = await submit();
    for (const reader of [owner, member, viewer, operator]) await must(`/observations/${created.id}`, { token: reader.token }, 200);
    await expectProblem(await server.request(`/observations/${created.id}`, { token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/observations/${created.id}/history`, { token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/observations/${created.id}/files`, { token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/observations/${created.id}`), 401, "UNAUTHENTICATED");
    const strangersList = (await must("/observations", { token: stranger.token }, 200)) as { items: Array<{ id: string }> };
    expect(strangersList.items.map((item) => item.id)).not.toContain(created.id);
    const membersList = (await must(`/observations?projectId=${projectId}`, { token: member.token }, 200)) as { items: Array<{ id: string }> };
    expect(membersList.items.map((item) => item.id)).toContain(created.id);
  });

  it("lets the owner or can_operate edit while pending or paused, and cancel", async () => {
    const created = await submit();
    await expectProblem(await server.request(`/observations/${created.id}`, { method: "PUT", token: member.token, json: { priority: 9 } }), 403, "FORBIDDEN");
    await expectProblem(await server.request(`/observations/${created.id}`, { method: "PUT", token: viewer.token, json: { priority: 9 } }), 403, "FORBIDDEN");
    expect(await must(`/observations/${created.id}`, { method: "PUT", token: operator.token, json: { priority: 9 } }, 200)).toMatchObject({ priority: 9 });
    expect((await move(created.id, "assigned")).status).toBe(200);
    await expectProblem(
      await server.request(`/observations/${created.id}`, { method: "PUT", token: owner.token, json: { priority: 3 } }),
      409,
      "INVALID_TRANSITION",
    );
    await expectProblem(await server.request(`/observations/${created.id}/cancel`, { method: "POST", token: member.token }), 403, "FORBIDDEN");
    expect(await must(`/observations/${created.id}/cancel`, { method: "POST", token: owner.token }, 200)).toMatchObject({ status: "cancelled" });
  });

  it("moves only along the table, by can_operate or the observatory's own key", async () => {
    const created = await submit();
    await expectProblem(
      (await server.request(`/observations/${created.id}/status`, { method: "POST", token: owner.token, json: { status: "completed" } })) as Response,
      409,
      "INVALID_TRANSITION",
    );
    await expectProblem(
      await server.request(`/observations/${created.id}/status`, { method: "POST", token: member.token, json: { status: "assigned" } }),
      403,
      "FORBIDDEN",
    );
    expect((await move(created.id, "assigned", operator.token)).status).toBe(200);
    // The key of another observatory does not see it; its own key moves it.
    await expectProblem(
      await server.request(`/observations/${created.id}/status`, { method: "POST", token: otherKey, json: { status: "in_progress" } }),
      404,
      "NOT_FOUND",
    );
    expect((await move(created.id, "in_progress", observatoryKey)).body).toMatchObject({ status: "in_progress" });
    const history = (await must(`/observations/${created.id}/history`, { token: owner.token }, 200)) as {
      items: Array<{ to: string; actor: { kind: string; id: string } }>;
    };
    expect(history.items.at(-1)).toMatchObject({ to: "in_progress", actor: { kind: "observatory", id: observatoryId } });
    expect(history.items.at(-2)).toMatchObject({ to: "assigned", actor: { kind: "user", id: operator.id } });
  });

  it("lets exactly one of several concurrent moves win; the others get 409", async () => {
    const created = await submit();
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(`/observations/${created.id}/cancel`, { method: "POST", token: owner.token })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const history = (await must(`/observations/${created.id}/history`, { token: owner.token }, 200)) as { items: unknown[] };
    expect(history.items).toHaveLength(2);
  });

  it("sends a monitoring observation back to pending after it completes, recording both moves", async () => {
    const created = await submit({ type: "monitoring" });
    // Dispatch assigns (here an operator stands in for it); the plugin reports the rest.
    expect((await move(created.id, "assigned", operator.token)).status).toBe(200);
    for (const status of ["in_progress", "acquisition_complete"]) expect((await move(created.id, status, observatoryKey)).status).toBe(200);
    expect((await move(created.id, "completed", observatoryKey)).body).toMatchObject({ status: "pending", isMonitoring: true });
    const history = (await must(`/observations/${created.id}/history`, { token: owner.token }, 200)) as {
      items: Array<{ from: string; to: string; actor: { kind: string } }>;
    };
    expect(history.items.slice(-2).map((entry) => [entry.from, entry.to, entry.actor.kind])).toEqual([
      ["acquisition_complete", "completed", "observatory"],
      ["completed", "pending", "system"],
    ]);
  });
});

describe("observatory keys", () => {
  it("act only as their observatory", async () => {
    await expectProblem(await server.request("/observations", { token: observatoryKey }), 403, "FORBIDDEN");
    await expectProblem(await server.request(`/observatories/${observatoryId}`, { token: observatoryKey }), 403, "FORBIDDEN");
    await expectProblem(await server.request("/api/v1/admin/settings", { token: observatoryKey }), 403, "FORBIDDEN");
    const created = await submit();
    // Users cannot upload files; only the observatory's key can.
    await expectProblem(
      await server.request(`/observations/${created.id}/files?filename=a.fits`, { method: "POST", token: owner.token, body: "x" }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await server.request(`/observations/${created.id}/files?filename=a.fits`, { method: "POST", token: otherKey, body: "x" }),
      404,
      "NOT_FOUND",
    );
  });

  it("are managed by can_admin, listed without the secret, and stop working when revoked", async () => {
    await expectProblem(await server.request(`/observatories/${observatoryId}/api-keys`, { token: operator.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request(`/observatories/${observatoryId}/api-keys`, { token: stranger.token }), 404, "NOT_FOUND");
    const created = (await must(`/observatories/${observatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "spare" } }, 201)) as {
      id: string;
      key: string;
    };
    expect(created.key).toMatch(/^mok_/);
    const listed = (await must(`/observatories/${observatoryId}/api-keys`, { token: owner.token }, 200)) as { items: Array<Record<string, unknown>> };
    expect(listed.items.find((item) => item.id === created.id)).toMatchObject({ name: "spare" });
    expect(JSON.stringify(listed)).not.toContain(created.key);
    const observation = await submit();
    expect((await move(observation.id, "assigned", operator.token)).status).toBe(200);
    expect((await move(observation.id, "in_progress", created.key)).status).toBe(200);
    await must(`/observatories/${observatoryId}/api-keys/${created.id}`, { method: "DELETE", token: owner.token }, 204);
    await expectProblem(
      await server.request(`/observations/${observation.id}/status`, { method: "POST", token: created.key, json: { status: "suspended" } }),
      401,
      "UNAUTHENTICATED",
    );
  });

  it("are at most 50 live per observatory: the next answers 409 CONFLICT, even to concurrent creations, and a revocation frees a place", async () => {
    const CAP = 50;
    const refusal = `An observatory holds at most ${CAP} keys; revoke one first`;
    const scopeId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Key cap scope" } }, 201)) as { id: string }).id;
    const createKey = (name: string) => server.request(`/observatories/${scopeId}/api-keys`, { method: "POST", token: owner.token, json: { name } });
    const listKeys = async () =>
      (await must(`/observatories/${scopeId}/api-keys`, { token: owner.token }, 200)) as { items: Array<{ id: string }>; nextCursor: null };
    const answers: Response[] = [];
    // Eight at a time: creations racing for the last places must not both pass the cap.
    for (let start = 0; start < CAP + 6; start += 8)
      answers.push(...(await Promise.all(Array.from({ length: Math.min(8, CAP + 6 - start) }, (_, offset) => createKey(`plugin ${start + offset}`)))));
    const created = answers.filter((answer) => answer.status === 201);
    expect(created).toHaveLength(CAP);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused).toHaveLength(6);
    for (const answer of refused) expect(await expectProblem(answer, 409, "CONFLICT")).toMatchObject({ title: "Conflict", detail: refusal });
    // Every live key is listed; another observatory's keys are not counted.
    const listed = await listKeys();
    expect(listed.nextCursor).toBeNull();
    expect(listed.items).toHaveLength(CAP);
    expect((await call(`/observatories/${otherObservatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "unrelated" } })).status).toBe(201);

    const revoked = (await created[0]!.json()) as { id: string };
    await must(`/observatories/${scopeId}/api-keys/${revoked.id}`, { method: "DELETE", token: owner.token }, 204);
    expect((await listKeys()).items).toHaveLength(CAP - 1);
    const replacement = (await must(`/observatories/${scopeId}/api-keys`, { method: "POST", token: owner.token, json: { name: "replacement" } }, 201)) as {
      id: string;
    };
    const after = await listKeys();
    expect(after.items).toHaveLength(CAP);
    expect(after.items.map((item) => item.id)).toContain(replacement.id);
    expect(after.items.map((item) => item.id)).not.toContain(revoked.id);
    await expectProblem(await createKey("still too many"), 409, "CONFLICT");
  });
});

describe("server settings", () => {
  it("are read and changed by server admins only, partially, with numeric versions", async () => {
    await expectProblem(await server.request("/api/v1/admin/settings", { token: owner.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request("/api/v1/admin/settings"), 401, "UNAUTHENTICATED");
    expect(await must("/api/v1/admin/settings", { token: adminToken }, 200)).toMatchObject({
      minimumPluginVersion: null,
      staleInProgressHours: 24,
      staleAssignedHours: 48,
    });
    const changed = await must(
      "/api/v1/admin/settings",
      { method: "PUT", token: adminToken, json: { minimumPluginVersion: "3.10.0.0", staleAssignedHours: 12 } },
      200,
    );
    expect(changed).toMatchObject({ minimumPluginVersion: "3.10.0.0", staleAssignedHours: 12, staleInProgressHours: 24 });
    await expectProblem(
      await server.request("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { minimumPluginVersion: "three" } }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(
      await server.request("/api/v1/admin/settings", { method: "PUT", token: owner.token, json: { staleAssignedHours: 1 } }),
      403,
      "FORBIDDEN",
    );
    expect(await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { minimumPluginVersion: null } }, 200)).toMatchObject({
      minimumPluginVersion: null,
    });
  });

  it("refuse a schedule in the words the settings page shows as one types, and keep a saved one for the next read", async () => {
    // The page checks with @meridian/rules/settings (apps/web/src/pages/ServerSettingsPage.test.tsx): the API answers the same sentence.
    const refused = await server.request("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: "every night" } });
    const problem = await expectProblem(refused, 400, "VALIDATION_FAILED");
    expect(problem.errors?.[0]?.message).toBe("The backup schedule must be a cron expression of five fields: minute hour day month weekday (UTC).");
    await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: "30 2 * * *", backupKeepDays: 14 } }, 200);
    expect(await must("/api/v1/admin/settings", { token: adminToken }, 200)).toMatchObject({ backupSchedule: "30 2 * * *", backupKeepDays: 14 });
    await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: null, backupKeepDays: 30 } }, 200);
  });
});

describe("refusals on every observation route", () => {
  type Caller = "anonymous" | "stranger" | "member" | "viewer" | "otherKey";
  const tokenOf = (caller: Caller) => ({ anonymous: undefined, stranger: stranger.token, member: member.token, viewer: viewer.token, otherKey })[caller];
  const UNAUTHENTICATED: [number, string] = [401, "UNAUTHENTICATED"];
  const FORBIDDEN: [number, string] = [403, "FORBIDDEN"];
  const NOT_FOUND: [number, string] = [404, "NOT_FOUND"];
  /** A read: project members and viewers of the observatory may, others may not. */
  const readers = { anonymous: UNAUTHENTICATED, stranger: NOT_FOUND, otherKey: FORBIDDEN };
  /** A change to the observation: project members and viewers may read it, not change it. */
  const operators = { anonymous: UNAUTHENTICATED, stranger: NOT_FOUND, member: FORBIDDEN, viewer: FORBIDDEN, otherKey: FORBIDDEN };
  /** The observatory's keys: hidden from a project member, who does not see the observatory; a viewer sees it, not its keys. */
  const keyAdmins = { anonymous: UNAUTHENTICATED, stranger: NOT_FOUND, member: NOT_FOUND, viewer: FORBIDDEN, otherKey: FORBIDDEN };
  const routes: Array<{
    name: string;
    method: string;
    path: (ids: { observation: string; key: string }) => string;
    json?: unknown;
    refused: Partial<Record<Caller, [number, string]>>;
  }> = [
    {
      name: "read",
      method: "GET",
      path: (ids) => `/observations/${ids.observation}`,
      refused: readers,
    },
    {
      name: "edit",
      method: "PUT",
      path: (ids) => `/observations/${ids.observation}`,
      json: { priority: 2 },
      refused: operators,
    },
    {
      name: "cancel",
      method: "POST",
      path: (ids) => `/observations/${ids.observation}/cancel`,
      refused: operators,
    },
    {
      name: "move",
      method: "POST",
      path: (ids) => `/observations/${ids.observation}/status`,
      json: { status: "paused" },
      refused: { ...operators, otherKey: NOT_FOUND },
    },
    {
      name: "history",
      method: "GET",
      path: (ids) => `/observations/${ids.observation}/history`,
      refused: readers,
    },
    {
      name: "files",
      method: "GET",
      path: (ids) => `/observations/${ids.observation}/files`,
      refused: readers,
    },
    {
      name: "upload",
      method: "POST",
      path: (ids) => `/observations/${ids.observation}/files?filename=x.fits`,
      refused: { anonymous: UNAUTHENTICATED, stranger: FORBIDDEN, member: FORBIDDEN, otherKey: NOT_FOUND },
    },
    {
      name: "queue",
      method: "GET",
      path: () => `/observatories/${observatoryId}/queue`,
      refused: { anonymous: UNAUTHENTICATED, stranger: NOT_FOUND, member: NOT_FOUND, otherKey: FORBIDDEN },
    },
    {
      name: "list keys",
      method: "GET",
      path: () => `/observatories/${observatoryId}/api-keys`,
      refused: keyAdmins,
    },
    {
      name: "create a key",
      method: "POST",
      path: () => `/observatories/${observatoryId}/api-keys`,
      json: { name: "intruder" },
      refused: keyAdmins,
    },
    {
      name: "revoke a key",
      method: "DELETE",
      path: (ids) => `/observatories/${observatoryId}/api-keys/${ids.key}`,
      refused: keyAdmins,
    },
  ];
  for (const route of routes)
    it(`${route.name}: ${Object.entries(route.refused)
      .map(([caller, [status]]) => `${caller} ${status}`)
      .join(", ")}`, async () => {
      const observation = await submit();
      const key = (await must(`/observatories/${observatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "kept" } }, 201)) as {
        id: string;
      };
      for (const [caller, [status, code]] of Object.entries(route.refused) as Array<[Caller, [number, string]]>) {
        const token = tokenOf(caller);
        const init =
          route.method === "POST" && route.path({ observation: "", key: "" }).includes("/files")
            ? { method: route.method, token, body: "bytes" }
            : { method: route.method, token, ...(route.json ? { json: route.json } : {}) };
        const response = await server.request(route.path({ observation: observation.id, key: key.id }), init);
        await expectProblem(response, status, code).catch((error: Error) => {
          throw new Error(`${caller}: ${error.message}`);
        });
      }
      // Nothing the refused callers sent changed the observation.
      expect(await must(`/observations/${observation.id}`, { token: owner.token }, 200)).toMatchObject({ status: "pending", priority: 5 });
    });
});

describe("how many unfinished observations one project holds", () => {
  const CAP = 10_000;
  const refusal = `The project holds ${CAP} unfinished observations, the most one may; cancel one or let one finish first`;
  const sql = () => server.server.runtime.deps.sql;
  const rowsIn = async (id: string) =>
    (await sql()<Array<{ count: number }>>`select count(*)::int as count from observations where project_id = ${id}`)[0]!.count;

  it(`refuses the observation past ${CAP} unfinished in a project (409 CONFLICT), created or cloned, even to two at the last place`, async () => {
    const planner = await createAccount(server);
    const { observatory, project } = await observingNetwork(must, planner);
    const fields = () => body({ projectId: project.id, observatoryId: observatory.id });
    const create = () => server.request("/observations", { method: "POST", token: planner.token, json: fields() });
    const submitted = async () => (await must("/observations", { method: "POST", token: planner.token, json: fields() }, 201)) as { id: string };
    const cancel = (id: string) => must(`/observations/${id}/cancel`, { method: "POST", token: planner.token }, 200);
    // Finished ones do not count: 51 cancelled beside 9,999 pending, written as rows.
    const finished = await submitted();
    await cancel(finished.id);
    await copyRow(sql(), { table: "observations", id: finished.id, copies: 50 });
    const waiting = await submitted();
    await copyRow(sql(), { table: "observations", id: waiting.id, copies: CAP - 2 });

    const last = (await (await create()).json()) as { id: string; status: string };
    expect(last.status).toBe("pending");
    expect((await expectProblem(await create(), 409, "CONFLICT")).detail).toBe(refusal);
    const clone = await server.request(`/observations/${waiting.id}/clone`, { method: "POST", token: planner.token });
    expect((await expectProblem(clone, 409, "CONFLICT")).detail).toBe(refusal);
    expect(await rowsIn(project.id)).toBe(CAP + 51);

    // A cancellation makes room for one; two creations race for it, and one is refused.
    await cancel(last.id);
    // Both count under the project's row (FOR NO KEY UPDATE, which a creation takes): the first waits at it, the second behind.
    const hold = await holdRows(server.databaseUrl, `select id from projects where id = '${project.id}' for no key update`);
    const answers = await queuedBehindHold({ hold, sql: sql(), first: create, second: create });
    await expectOneCreatedOneRefused(answers, refusal);
    expect(await rowsIn(project.id)).toBe(CAP + 52);
  });
});

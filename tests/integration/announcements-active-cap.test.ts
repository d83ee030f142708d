import { announcementScopeLockKey, MAX_ACTIVE_ANNOUNCEMENTS as CAP, MAX_SHOWING_ANNOUNCEMENTS as SHOWING } from "@meridian/domain/announcements";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectOneCreatedOneRefused, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { copyRow } from "../support/row-copies";
import { holdRows, queuedBehindHold } from "../support/table-hold";
import type { TestServer } from "../support/test-server";

/**
 * How many announcements one scope may have active at once (MAX_ACTIVE_ANNOUNCEMENTS): every
 * pending list starts from the active announcements of every scope, so one sender cannot make
 * them many. The hundreds a cap is tried against are copies of one created through the API.
 */
const ADMIN = { email: "motd-cap-admin@example.com", password: "motd cap admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);
const sql = () => server.server.runtime.deps.sql;

let counter = 0;
const content = () => ({ title: `Notice ${(counter += 1)}`, message: "The dome is closed tonight.", severity: "info", deliveryType: "message" });
const post = (base: string, token: string, json: Record<string, unknown> = content()) => server.request(`${base}/motd`, { method: "POST", token, json });
const createProject = async (owner: Account) =>
  (await must("/projects", { method: "POST", token: owner.token, json: { name: `Capped ${counter++}` } }, 201)) as { id: string };
const activeIn = async (scope: string, scopeId: string | null) =>
  (
    await sql()<Array<{ count: number }>>`
      select count(*)::int as count from announcements
       where scope = ${scope} and scope_id is not distinct from ${scopeId} and status = 'active'`
  )[0]!.count;

/**
 * A project whose owner has created one announcement and `copies` more were written beside it. A
 * member who has not acknowledged them keeps them active (the creator alone would have
 * acknowledged each at its creation).
 */
async function projectWithActive(owner: Account, copies: number) {
  const project = await createProject(owner);
  const base = `/projects/${project.id}`;
  const member = await createAccount(server);
  await must(`${base}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
  const first = (await must(`${base}/motd`, { method: "POST", token: owner.token, json: content() }, 201)) as { id: string };
  await copyRow(sql(), { table: "announcements", id: first.id, copies });
  return { project, base, first };
}

describe("active announcements per scope", () => {
  const refusal = (scope: string) => `The ${scope} has ${CAP} active announcements, the most one may have; cancel one or let one expire first`;

  it(`refuses a project's announcement past ${CAP} with 409 CONFLICT, stores nothing, and takes one again once one ends`, async () => {
    const owner = await createAccount(server);
    const { project, base, first } = await projectWithActive(owner, CAP - 1);
    const refused = await expectProblem(await post(base, owner.token), 409, "CONFLICT");
    expect(refused.detail).toBe(refusal("project"));
    expect(await activeIn("project", project.id)).toBe(CAP);

    // Another scope of the same sender has its own room.
    const other = await createProject(owner);
    expect((await post(`/projects/${other.id}`, owner.token)).status).toBe(201);

    await must(`${base}/motd/${first.id}`, { method: "DELETE", token: owner.token, json: { reason: "superseded" } }, 200);
    expect((await post(base, owner.token)).status).toBe(201);
    expect(await activeIn("project", project.id)).toBe(CAP);
  });

  it("does not count an announcement past its expiry that the minute sweep has not ended yet", async () => {
    const owner = await createAccount(server);
    const { project, base, first } = await projectWithActive(owner, CAP - 1);
    await sql()`update announcements set expires_at = now() - interval '1 minute' where id = ${first.id}`;
    expect((await post(base, owner.token)).status).toBe(201);
    expect(await activeIn("project", project.id)).toBe(CAP + 1);
  });

  it("lets exactly one of two creations at the last place win, the other 409 CONFLICT", async () => {
    const owner = await createAccount(server);
    const { project, base } = await projectWithActive(owner, CAP - 2);
    // Creations in one scope take turns under its advisory lock: the first waits at the held lock, the second queues behind.
    const hold = await holdRows(
      server.databaseUrl,
      `select pg_advisory_xact_lock(hashtextextended('${announcementScopeLockKey({ scope: "project", scopeId: project.id })}', 0))`,
    );
    const answers = await queuedBehindHold({ hold, sql: sql(), first: () => post(base, owner.token), second: () => post(base, owner.token) });
    await expectOneCreatedOneRefused(answers, refusal("project"));
    expect(await activeIn("project", project.id)).toBe(CAP);
  });

  it(`holds the server's system announcements to ${CAP} active as well`, async () => {
    const member = await createAccount(server);
    const system = (json: Record<string, unknown>) => server.request("/api/v1/system/motd", { method: "POST", token: adminToken, json });
    const body = () => ({ ...content(), targets: { users: { ids: [member.id] } } });
    const firstResponse = await system(body());
    expect(firstResponse.status).toBe(201);
    const first = (await firstResponse.json()) as { id: string };
    const already = await activeIn("system", null);
    await copyRow(sql(), { table: "announcements", id: first.id, copies: CAP - already });
    const refused = await expectProblem(await system(body()), 409, "CONFLICT");
    expect(refused.detail).toBe(`The server has ${CAP} active announcements, the most one may have; cancel one or let one expire first`);
    await sql()`update announcements set status = 'cancelled' where scope = 'system' and id like ${`${first.id}-copy-%`}`;
  });
});

describe("announcements showing per scope", () => {
  it(`ends the scope's oldest acknowledged announcements when a creation would show more than ${SHOWING}, never an active one`, async () => {
    const owner = await createAccount(server);
    const { project, base, first } = await projectWithActive(owner, SHOWING - 2);
    // Half the copies acknowledged by everyone: they cannot be cancelled, and have no expiry.
    await sql()`update announcements set status = 'acknowledged', acknowledged_count = recipient_count,
                  doc = doc || jsonb_build_object('status', 'acknowledged', 'acknowledgedCount', recipient_count)
                 where scope_id = ${project.id} and id <> ${first.id} and split_part(id, '-copy-', 2)::int % 2 = 0`;
    const showing = async () =>
      ((await must(`${base}/motd`, { token: owner.token }, 200)) as { items: Array<{ id: string; status: string }> }).items.map((item) => item.id);
    const oldestAcknowledged = async () =>
      (
        await sql()<Array<{ id: string }>>`
          select id from announcements where scope_id = ${project.id} and status = 'acknowledged' and expires_at is null order by created_at, id limit 1`
      )[0]!.id;
    const activeBefore = await activeIn("project", project.id);

    const second = (await must(`${base}/motd`, { method: "POST", token: owner.token, json: content() }, 201)) as { id: string };
    expect((await showing()).length).toBe(SHOWING);
    const toEnd = await oldestAcknowledged();
    const third = (await must(`${base}/motd`, { method: "POST", token: owner.token, json: content() }, 201)) as { id: string };

    const after = await showing();
    expect(after.length).toBe(SHOWING);
    expect(after).not.toContain(toEnd);
    expect(after).toEqual(expect.arrayContaining([first.id, second.id, third.id]));
    expect(await activeIn("project", project.id)).toBe(activeBefore + 2);
    // It stays acknowledged, in the history, with the moment it stopped showing as its expiry; its recipients are told.
    const history = (await must(`${base}/motd/history?limit=200`, { token: owner.token }, 200)) as {
      items: Array<{ id: string; status: string; expiresAt: string | null }>;
    };
    const ended = history.items.find((item) => item.id === toEnd)!;
    expect(ended.status).toBe("acknowledged");
    expect(Date.parse(ended.expiresAt!)).toBeLessThanOrEqual(Date.now());
    const [told] = await sql()<Array<{ count: number }>>`
      select count(*)::int as count from realtime_events where type = 'announcement.expired' and announcement_id = ${toEnd}`;
    expect(told!.count).toBe(1);
  });
});

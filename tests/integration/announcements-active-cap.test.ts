import { announcementScopeLockKey, MAX_ACTIVE_ANNOUNCEMENTS as CAP, MAX_SHOWING_ANNOUNCEMENTS as SHOWING } from "@meridian/domain/announcements";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRow } from "../support/row-copies";
import { holdRows, queuedBehindHold } from "../support/table-hold";
import { expectRefusal, refusalOf, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";

/**
 * How many announcements one scope may have active at once (MAX_ACTIVE_ANNOUNCEMENTS): every
 * pending list starts from the active announcements of every scope, so one sender cannot make
 * them many. The hundreds a cap is tried against are copies of one created through the API.
 */
const ADMIN = { email: "motd-cap-admin@example.com", password: "motd cap admin password" };
// The caps are domain rules: through the app router's caller, on a runtime without HTTP.
let runtime: TestRuntime;
let admin: CallerAccount;
beforeAll(async () => {
  runtime = await startTestRuntime({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
  admin = await runtime.signIn(ADMIN);
});
afterAll(() => runtime?.stop());
type Account = CallerAccount;
const createAccount = () => runtime.signup();
const sql = () => runtime.deps.sql;

let counter = 0;
const content = () => ({
  title: `Notice ${(counter += 1)}`,
  message: "The dome is closed tonight.",
  severity: "info" as const,
  deliveryType: "message" as const,
});
/** Creates an announcement of the project as `as`. */
const post = (projectId: string, as: Account) => as.caller.announcements.createScoped({ scope: "project", scopeId: projectId, announcement: content() });
/** The REST status of a call: its success's, or its refusal's. */
const statusOf = (call: Promise<unknown>, success: number) =>
  call.then(
    () => success,
    async (error: unknown) => (await refusalOf(Promise.reject(error as Error))).status,
  );
const createProject = (owner: Account) => owner.caller.projects.create({ name: `Capped ${counter++}` });
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
  const member = await createAccount();
  await owner.caller.projects.addMember({ id: project.id, email: member.email, role: "member" });
  const first = await post(project.id, owner);
  await copyRow(sql(), { table: "announcements", id: first.id, copies });
  return { project, first };
}

describe("active announcements per scope", () => {
  const refusal = (scope: string) => `The ${scope} has ${CAP} active announcements, the most one may have; cancel one or let one expire first`;

  it(`refuses a project's announcement past ${CAP} with 409 CONFLICT, stores nothing, and takes one again once one ends`, async () => {
    const owner = await createAccount();
    const { project, first } = await projectWithActive(owner, CAP - 1);
    const refused = await expectRefusal(post(project.id, owner), 409, "CONFLICT");
    expect(refused.message).toBe(refusal("project"));
    expect(await activeIn("project", project.id)).toBe(CAP);

    // Another scope of the same sender has its own room.
    const other = await createProject(owner);
    expect(await statusOf(post(other.id, owner), 201)).toBe(201);

    await owner.caller.announcements.cancel({ ref: { scope: "project", scopeId: project.id }, id: first.id, reason: "superseded" });
    expect(await statusOf(post(project.id, owner), 201)).toBe(201);
    expect(await activeIn("project", project.id)).toBe(CAP);
  });

  it("does not count an announcement past its expiry that the minute sweep has not ended yet", async () => {
    const owner = await createAccount();
    const { project, first } = await projectWithActive(owner, CAP - 1);
    await sql()`update announcements set expires_at = now() - interval '1 minute' where id = ${first.id}`;
    expect(await statusOf(post(project.id, owner), 201)).toBe(201);
    expect(await activeIn("project", project.id)).toBe(CAP + 1);
  });

  it("lets exactly one of two creations at the last place win, the other 409 CONFLICT", async () => {
    const owner = await createAccount();
    const { project } = await projectWithActive(owner, CAP - 2);
    // Creations in one scope take turns under its advisory lock: the first waits at the held lock, the second queues behind.
    const hold = await holdRows(
      runtime.databaseUrl,
      `select pg_advisory_xact_lock(hashtextextended('${announcementScopeLockKey({ scope: "project", scopeId: project.id })}', 0))`,
    );
    const answers = await queuedBehindHold({
      hold,
      sql: sql(),
      first: () =>
        post(project.id, owner).then(
          () => undefined,
          (error: unknown) => error,
        ),
      second: () =>
        post(project.id, owner).then(
          () => undefined,
          (error: unknown) => error,
        ),
    });
    // One was created, the other refused 409 CONFLICT with the cap's message.
    const refusals = answers.filter((answer) => answer !== undefined);
    expect(refusals).toHaveLength(1);
    const refused = await expectRefusal(Promise.reject(refusals[0] as Error), 409, "CONFLICT");
    expect(refused.message).toBe(refusal("project"));
    expect(await activeIn("project", project.id)).toBe(CAP);
  });

  it(`holds the server's system announcements to ${CAP} active as well`, async () => {
    const member = await createAccount();
    const system = () => admin.caller.announcements.createSystem({ ...content(), targets: { users: { ids: [member.id] } } });
    const first = await system();
    const already = await activeIn("system", null);
    await copyRow(sql(), { table: "announcements", id: first.id, copies: CAP - already });
    const refused = await expectRefusal(system(), 409, "CONFLICT");
    expect(refused.message).toBe(`The server has ${CAP} active announcements, the most one may have; cancel one or let one expire first`);
    await sql()`update announcements set status = 'cancelled' where scope = 'system' and id like ${`${first.id}-copy-%`}`;
  });
});

describe("announcements showing per scope", () => {
  it(`ends the scope's oldest acknowledged announcements when a creation would show more than ${SHOWING}, never an active one`, async () => {
    const owner = await createAccount();
    const { project, first } = await projectWithActive(owner, SHOWING - 2);
    // Half the copies acknowledged by everyone: they cannot be cancelled, and have no expiry.
    await sql()`update announcements set status = 'acknowledged', acknowledged_count = recipient_count,
                  doc = doc || jsonb_build_object('status', 'acknowledged', 'acknowledgedCount', recipient_count)
                 where scope_id = ${project.id} and id <> ${first.id} and split_part(id, '-copy-', 2)::int % 2 = 0`;
    const showing = async () => (await owner.caller.announcements.listActive({ scope: "project", scopeId: project.id })).items.map((item) => item.id);
    const oldestAcknowledged = async () =>
      (
        await sql()<Array<{ id: string }>>`
          select id from announcements where scope_id = ${project.id} and status = 'acknowledged' and expires_at is null order by created_at, id limit 1`
      )[0]!.id;
    const activeBefore = await activeIn("project", project.id);

    const second = await post(project.id, owner);
    expect((await showing()).length).toBe(SHOWING);
    const toEnd = await oldestAcknowledged();
    const third = await post(project.id, owner);

    const after = await showing();
    expect(after.length).toBe(SHOWING);
    expect(after).not.toContain(toEnd);
    expect(after).toEqual(expect.arrayContaining([first.id, second.id, third.id]));
    expect(await activeIn("project", project.id)).toBe(activeBefore + 2);
    // It stays acknowledged, in the history, with the moment it stopped showing as its expiry; its recipients are told.
    const history = await owner.caller.announcements.history({ scope: "project", scopeId: project.id, limit: 200 });
    const ended = history.items.find((item) => item.id === toEnd)!;
    expect(ended.status).toBe("acknowledged");
    expect(Date.parse(ended.expiresAt!)).toBeLessThanOrEqual(Date.now());
    const [told] = await sql()<Array<{ count: number }>>`
      select count(*)::int as count from realtime_events where type = 'announcement.expired' and announcement_id = ${toEnd}`;
    expect(told!.count).toBe(1);
  });
});

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganizationAs, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";
import { until } from "../support/until";

const ADMIN = { email: "audit-retention-admin@example.com", password: "audit retention admin password" };
const KEEP_DAYS = 30;
// The retention job's rule, through the app router's caller on a runtime without HTTP, with the worker that runs the job.
let runtime: TestRuntime;
let admin: CallerAccount;
beforeAll(async () => {
  runtime = await startTestRuntime({
    worker: true,
    env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, AUDIT_LOG_KEEP_DAYS: String(KEEP_DAYS) },
  });
  admin = await runtime.signIn(ADMIN);
});
afterAll(() => runtime?.stop());

describe("audit log retention", () => {
  it("the daily prune_audit_log removes entries written more than AUDIT_LOG_KEEP_DAYS ago and keeps the rest", async () => {
    const owner = await runtime.signup();
    const organization = await createOrganizationAs(owner, { name: "Retention Institute" });
    const members = [await runtime.signup(), await runtime.signup(), await runtime.signup()];
    for (const member of members) await owner.caller.organizations.addMember({ id: organization.id, email: member.email });
    const organizationEntries = async () => (await owner.caller.organizations.audit({ id: organization.id, limit: 200 })).items;
    const logged = await organizationEntries();
    const entryAbout = (userId: string) => logged.find((entry) => entry.target.id === userId)!.id;
    const [old, older, recent] = members.map((member) => entryAbout(member.id));

    const db = runtime.deps.db;
    const age = (id: string, days: number) => db.execute(sql`update audit_log set created_at = now() - make_interval(days => ${days}) where id = ${id}`);
    await age(old!, KEEP_DAYS + 1);
    await age(older!, 400);
    await age(recent!, KEEP_DAYS - 1);

    await db.execute(sql`select graphile_worker.add_job('prune_audit_log', '{}'::json)`);
    const left = await until("the entries older than the horizon to be removed", async () => {
      const items = await organizationEntries();
      return items.some((entry) => entry.id === old || entry.id === older) ? undefined : items;
    });
    expect(left.map((entry) => entry.id).sort()).toEqual(
      logged
        .map((entry) => entry.id)
        .filter((id) => id !== old && id !== older)
        .sort(),
    );
    // The server-wide view agrees: the pruned entries are gone from it too, the others stay.
    const serverWide = (await admin.caller.admin.audit({ scopeId: organization.id, limit: 200 })).items.map((entry) => entry.id);
    expect(serverWide).toContain(recent);
    expect(serverWide).not.toContain(old);
    expect(serverWide).not.toContain(older);
  });
});

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "audit-retention-admin@example.com", password: "audit retention admin password" };
const KEEP_DAYS = 30;
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", AUDIT_LOG_KEEP_DAYS: String(KEEP_DAYS) }));
});
afterAll(() => server?.stop());
const { must, createOrganization } = jsonApi(() => server);

interface Entry {
  id: string;
  action: string;
  target: { id: string };
}

describe("audit log retention", () => {
  it("the daily prune_audit_log removes entries written more than AUDIT_LOG_KEEP_DAYS ago and keeps the rest", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner, { name: "Retention Institute" });
    const members = [await createAccount(server), await createAccount(server), await createAccount(server)];
    for (const member of members)
      await must(`/organizations/${organization.id}/members`, { method: "POST", token: owner.token, json: { email: member.email } });
    const entries = async (path: string, token: string) => ((await must(path, { token }, 200)) as { items: Entry[] }).items;
    const logged = await entries(`/organizations/${organization.id}/audit?limit=200`, owner.token);
    const entryAbout = (userId: string) => logged.find((entry) => entry.target.id === userId)!.id;
    const [old, older, recent] = members.map((member) => entryAbout(member.id));

    const db = server.server.runtime.deps.db;
    const age = (id: string, days: number) => db.execute(sql`update audit_log set created_at = now() - make_interval(days => ${days}) where id = ${id}`);
    await age(old!, KEEP_DAYS + 1);
    await age(older!, 400);
    await age(recent!, KEEP_DAYS - 1);

    await db.execute(sql`select graphile_worker.add_job('prune_audit_log', '{}'::json)`);
    const left = await until("the entries older than the horizon to be removed", async () => {
      const items = await entries(`/organizations/${organization.id}/audit?limit=200`, owner.token);
      return items.some((entry) => entry.id === old || entry.id === older) ? undefined : items;
    });
    expect(left.map((entry) => entry.id).sort()).toEqual(
      logged
        .map((entry) => entry.id)
        .filter((id) => id !== old && id !== older)
        .sort(),
    );
    // The server-wide view agrees: the pruned entries are gone from it too, the others stay.
    const serverWide = (await entries(`/api/v1/admin/audit?scopeId=${organization.id}&limit=200`, adminToken)).map((entry) => entry.id);
    expect(serverWide).toContain(recent);
    expect(serverWide).not.toContain(old);
    expect(serverWide).not.toContain(older);
  });
});

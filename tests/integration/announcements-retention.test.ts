import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { copyRow } from "../support/row-copies";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * The daily prune_announcements: an announcement that ended (cancelled, or past its expiry) more
 * than ANNOUNCEMENTS_KEEP_DAYS ago leaves its scope's history with its recipient rows; one that
 * still shows, or ended more recently, stays.
 */
const ADMIN = { email: "motd-retention-admin@example.com", password: "motd retention admin password" };
const KEEP_DAYS = 30;
let server: TestServer;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", ANNOUNCEMENTS_KEEP_DAYS: String(KEEP_DAYS) }));
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);
const sql = () => server.server.runtime.deps.sql;

const recipientRows = async (announcementId: string) =>
  (
    await sql()<Array<{ count: number }>>`
      select count(*)::int as count from announcement_recipients where id >= ${`${announcementId}:`} and id < ${`${announcementId};`}`
  )[0]!.count;

describe("announcement retention", () => {
  it("the daily prune_announcements removes announcements that ended more than ANNOUNCEMENTS_KEEP_DAYS ago, with their recipients", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Retained notices" } }, 201)) as { id: string };
    const base = `/projects/${project.id}`;
    await must(`${base}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
    const create = async (title: string, extra: Record<string, unknown> = {}) =>
      (
        (await must(
          `${base}/motd`,
          { method: "POST", token: owner.token, json: { title, message: "Dome notice.", severity: "info", deliveryType: "message", ...extra } },
          201,
        )) as { id: string }
      ).id;
    const cancel = (id: string) => must(`${base}/motd/${id}`, { method: "DELETE", token: owner.token, json: { reason: "superseded" } }, 200);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();

    const cancelledLongAgo = await create("Cancelled long ago");
    const cancelledRecently = await create("Cancelled recently");
    const expiredLongAgo = await create("Expired long ago", { expiresAt: tomorrow });
    const expiredRecently = await create("Expired recently", { expiresAt: tomorrow });
    const showingForAYear = await create("No expiry, still showing");
    await cancel(cancelledLongAgo);
    await cancel(cancelledRecently);
    // More recipient rows than one statement removes, so the pass has to come back for the rest.
    await copyRow(sql(), { table: "announcement_recipients", id: `${cancelledLongAgo}:${member.id}`, copies: 12_000 });
    expect(await recipientRows(cancelledLongAgo)).toBe(12_002);

    const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    const age = async (id: string, options: { startedDaysAgo: number; cancelledDaysAgo?: number; expiredDaysAgo?: number }) => {
      const cancelledAt = options.cancelledDaysAgo === undefined ? null : ago(options.cancelledDaysAgo);
      const expiresAt = options.expiredDaysAgo === undefined ? null : ago(options.expiredDaysAgo);
      await sql()`
        update announcements
           set starts_at = ${ago(options.startedDaysAgo)}, created_at = ${ago(options.startedDaysAgo)},
               expires_at = coalesce(${expiresAt}::timestamptz, expires_at),
               doc = doc || jsonb_strip_nulls(jsonb_build_object(
                 'startsAt', ${ago(options.startedDaysAgo)}::text, 'cancelledAt', ${cancelledAt}::text, 'expiresAt', ${expiresAt}::text))
         where id = ${id}`;
    };
    await age(cancelledLongAgo, { startedDaysAgo: KEEP_DAYS + 10, cancelledDaysAgo: KEEP_DAYS + 1 });
    await age(cancelledRecently, { startedDaysAgo: KEEP_DAYS + 10, cancelledDaysAgo: KEEP_DAYS - 1 });
    await age(expiredLongAgo, { startedDaysAgo: KEEP_DAYS + 10, expiredDaysAgo: KEEP_DAYS + 1 });
    await age(expiredRecently, { startedDaysAgo: KEEP_DAYS + 10, expiredDaysAgo: KEEP_DAYS - 1 });
    await age(showingForAYear, { startedDaysAgo: 400 });

    const history = async (viewer: Account) =>
      ((await must(`${base}/motd/history?limit=100`, { token: viewer.token }, 200)) as { items: Array<{ id: string; status: string }> }).items;
    const before = await history(owner);
    expect(before.map((item) => item.id).sort()).toEqual([cancelledLongAgo, cancelledRecently, expiredLongAgo, expiredRecently, showingForAYear].sort());

    await sql()`select graphile_worker.add_job('prune_announcements', '{}'::json)`;
    const left = await until("the announcements that ended before the horizon to be removed", async () => {
      const items = await history(owner);
      return items.some((item) => item.id === cancelledLongAgo || item.id === expiredLongAgo) ? undefined : items;
    });

    expect(left.map((item) => item.id).sort()).toEqual([cancelledRecently, expiredRecently, showingForAYear].sort());
    expect(await recipientRows(cancelledLongAgo)).toBe(0);
    expect(await recipientRows(expiredLongAgo)).toBe(0);
    expect(await recipientRows(cancelledRecently)).toBe(2);
    await must(`${base}/motd/${expiredLongAgo}/recipients`, { token: owner.token }, 404);
    // The one without an expiry still shows to its member, as it did before the prune.
    const showing = (await must(`${base}/motd`, { token: member.token }, 200)) as { items: Array<{ id: string }> };
    expect(showing.items.map((item) => item.id)).toEqual([showingForAYear]);
  });
});

import { sendApiKeyExpiryNotices } from "@meridian/domain/auth";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { startSmtpCapture, type CapturedMail } from "../support/smtp-capture";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * The hourly `api_key_expiry_notices` job emails a user once about their live API keys expiring within 7 days,
 * one message listing them all, with a link to the API keys page.
 */
const ADMIN = { email: "api-key-expiry-admin@example.com", password: "api key expiry admin password" };
const DAY_MS = 24 * 60 * 60 * 1000;
const SUBJECTS = /^(Your Meridian API key expires soon|\d+ of your Meridian API keys expire soon)$/;
let server: TestServer;
let adminToken: string;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
beforeAll(async () => {
  smtp = await startSmtpCapture();
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", SMTP_URL: smtp.url }));
});
afterAll(async () => {
  await server?.stop();
  await smtp?.stop();
});
const { must } = jsonApi(() => server);
const db = () => server.server.runtime.deps.db;

interface Key {
  id: string;
  name: string;
  prefix: string;
  expiresAt: string | null;
}
/** Creates a key expiring `days` from now (null: never) and answers it as listed, prefix included. */
async function keyOf(account: Account, name: string, days: number | null): Promise<Key> {
  const expiresAt = days === null ? null : new Date(Date.now() + days * DAY_MS).toISOString();
  const { id } = await must("/api/v1/user/api-keys", { method: "POST", token: account.token, json: { name, expiresAt } }, 201);
  const { items } = await must("/api/v1/user/api-keys", { token: account.token }, 200);
  return (items as Key[]).find((item) => item.id === id)!;
}
/** A key's line in the notice: its name, prefix and expiry to the minute in UTC. */
const lineOf = (key: Key) => `- ${key.name} (${key.prefix}…), expires ${key.expiresAt!.slice(0, 16).replace("T", " ")} UTC`;

const noticesTo = (messages: CapturedMail[], account: Account) =>
  messages.filter((mail) => SUBJECTS.test(mail.subject ?? "") && mail.to.includes(account.email.toLowerCase()));

/** Runs the job once and waits until it has finished and every message it wrote has left the outbox. */
async function runNotices() {
  await db().execute(sql`select graphile_worker.add_job('api_key_expiry_notices', '{}'::json)`);
  await until("the notices job to finish and its mail to go out", async () => {
    const [row] = await db().execute<{ jobs: number; pending: number }>(sql`
      select (select count(*)::int from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
               where t.identifier = 'api_key_expiry_notices') as jobs,
             (select count(*)::int from email_outbox where status = 'pending' and doc->>'kind' = 'api_key_expiry_notice') as pending`);
    return row!.jobs === 0 && row!.pending === 0;
  });
}
/** How many notices the outbox holds for each account, sent or not. */
async function outboxCounts(accounts: Account[]) {
  const counts: number[] = [];
  for (const account of accounts) {
    const [row] = await db().execute<{ count: number }>(
      sql`select count(*)::int as count from email_outbox where doc->>'kind' = 'api_key_expiry_notice' and recipient = ${account.email.toLowerCase()}`,
    );
    counts.push(row!.count);
  }
  return counts;
}
async function noticeAtOf(keyId: string) {
  const [row] = await db().execute<{ at: string | null }>(sql`select doc->>'expiryNoticeAt' as at from api_keys where id = ${keyId}`);
  return row!.at;
}

describe("API key expiry notices", () => {
  it("mail each owner once, listing only their live keys that expire within 7 days; a second run sends nothing", async () => {
    const [alice, bob, carol] = [await createAccount(server), await createAccount(server), await createAccount(server)];
    const soon = await keyOf(alice, "ci uploader", 2);
    const sooner = await keyOf(alice, "night backup", 6.5);
    const later = await keyOf(alice, "monthly report", 30);
    const never = await keyOf(alice, "forever", null);
    const revoked = await keyOf(alice, "revoked one", 3);
    expect((await server.request(`/api/v1/user/api-keys/${revoked.id}`, { method: "DELETE", token: alice.token })).status).toBe(204);
    const expired = await keyOf(alice, "expired one", 1);
    const past = new Date(Date.now() - 60_000).toISOString();
    await db().execute(sql`update api_keys set doc = jsonb_set(doc, '{expiresAt}', to_jsonb(${past}::text)) where id = ${expired.id}`);
    const bobs = await keyOf(bob, "bob's telescope script", 4);
    const carols = await keyOf(carol, "carol's key", 3);
    await must(`/api/v1/admin/users/${carol.id}`, { method: "PUT", token: adminToken, json: { disabled: true } }, 200);

    await runNotices();
    const messages = await smtp.waitFor((all) => noticesTo(all, alice).length >= 1 && noticesTo(all, bob).length >= 1);
    const [toAlice] = noticesTo(messages, alice);
    expect(toAlice!.to).toEqual([alice.email.toLowerCase()]);
    expect(toAlice!.subject).toBe("2 of your Meridian API keys expire soon");
    const text = toAlice!.text ?? "";
    // Soonest first.
    expect(text).toContain(`${lineOf(soon)}\n${lineOf(sooner)}\n`);
    expect(text).toMatch(/http:\/\/\S+\/app\/api-keys\b/);
    for (const other of [later, never, revoked, expired, bobs]) expect(text).not.toContain(other.name);

    const [toBob] = noticesTo(messages, bob);
    expect(toBob!.to).toEqual([bob.email.toLowerCase()]);
    expect(toBob!.subject).toBe("Your Meridian API key expires soon");
    expect(toBob!.text).toContain(lineOf(bobs));
    for (const other of [soon, sooner]) expect(toBob!.text).not.toContain(other.name);

    expect(noticesTo(messages, carol)).toEqual([]);
    expect(await outboxCounts([alice, bob, carol])).toEqual([1, 1, 0]);
    for (const key of [soon, sooner, bobs]) expect(await noticeAtOf(key.id)).not.toBeNull();
    for (const key of [later, never, revoked, expired, carols]) expect(await noticeAtOf(key.id)).toBeNull();

    await runNotices();
    expect(await outboxCounts([alice, bob, carol])).toEqual([1, 1, 0]);
    expect([alice, bob, carol].map((account) => noticesTo(smtp.messages, account).length)).toEqual([1, 1, 0]);

    // A key that comes due later is told of on its own: the ones warned before are not listed again.
    const fresh = await keyOf(alice, "new deploy key", 5);
    await runNotices();
    const [, again] = noticesTo(await smtp.waitFor((all) => noticesTo(all, alice).length >= 2), alice);
    expect(again!.subject).toBe("Your Meridian API key expires soon");
    expect(again!.text).toContain(lineOf(fresh));
    for (const other of [soon, sooner]) expect(again!.text).not.toContain(other.name);
    expect(await outboxCounts([alice, bob, carol])).toEqual([2, 1, 0]);
  });

  it("warn each owner once when runs overlap, as two workers' would", async () => {
    const owners = await Promise.all(Array.from({ length: 6 }, () => createAccount(server)));
    for (const owner of owners) for (const name of ["first", "second"]) await keyOf(owner, name, 3);

    const deps = server.server.runtime.deps;
    const runs = await Promise.all(Array.from({ length: 4 }, () => sendApiKeyExpiryNotices({ deps, now: new Date() })));
    expect(runs.reduce((sum, run) => sum + run.users, 0)).toBe(owners.length);
    expect(runs.reduce((sum, run) => sum + run.keys, 0)).toBe(2 * owners.length);
    expect(await outboxCounts(owners)).toEqual(owners.map(() => 1));
    const messages = await smtp.waitFor((all) => owners.every((owner) => noticesTo(all, owner).length >= 1));
    for (const owner of owners) expect(noticesTo(messages, owner).map((mail) => mail.subject)).toEqual(["2 of your Meridian API keys expire soon"]);
  });
});

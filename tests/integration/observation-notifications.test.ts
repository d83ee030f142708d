import { createECDH, randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { reportStaleObservations } from "@meridian/domain/observations";
import webpush from "web-push";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcErrorCode } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { startPushReceivers } from "../support/push-receivers";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { startSmtpCapture } from "../support/smtp-capture";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "notifications-admin@example.com", password: "notifications admin password" };
const vapid = webpush.generateVAPIDKeys();
let server: TestServer;
let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let receivers: Awaited<ReturnType<typeof startPushReceivers>>;
let secondWorker: NodeProcess | undefined;
/** What the server and any further worker process need to deliver notifications. */
const deliveryEnv = () => ({
  SMTP_URL: capture.url,
  PUBLIC_URL: "https://meridian.example.org",
  VAPID_PUBLIC_KEY: vapid.publicKey,
  VAPID_PRIVATE_KEY: vapid.privateKey,
  VAPID_SUBJECT: "mailto:ops@example.org",
  PUSH_APP_TOKEN: "app-token-for-tests",
  PUSH_API_URL: receivers.pushoverUrl,
});
beforeAll(async () => {
  capture = await startSmtpCapture();
  receivers = await startPushReceivers();
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", ...deliveryEnv() }));
});
afterAll(async () => {
  if (secondWorker && isRunning(secondWorker)) await terminate(secondWorker, 10_000);
  await server?.stop();
  await capture?.stop();
  await receivers?.stop();
});
const { must } = jsonApi(() => server);

/** A browser's subscription: a real P-256 key pair and auth secret, so the payload can be encrypted to it. */
const subscription = (name: string) => ({
  endpoint: `${receivers.url}/push/${name}`,
  keys: { p256dh: createECDH("prime256v1").generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") },
});
const target = { name: "Polaris", ra: 37.95, dec: 89.26, exposures: [{ filter: "L", exposureSeconds: 5, count: 1, binning: 1 }] };

async function setUp(owner: Account, notifications?: Record<string, unknown>) {
  const { key, observation } = await observationWithKey(must, {
    owner,
    project: "Notified",
    observation: { name: `Notified ${randomUUID().slice(0, 6)}`, targets: [target], ...(notifications ? { notifications } : {}) },
  });
  // The plugin's key reports what a plugin does; assigning is dispatch's (the owner, an operator, stands in for it).
  const move = (status: string) =>
    must(`/observations/${observation.id}/status`, { method: "POST", token: status === "assigned" ? owner.token : key, json: { status } }, 200);
  return { observation, move };
}

describe("observation notifications", () => {
  it("reach the owner by email (text and HTML, with a link) and by both push kinds, high priority when it fails", async () => {
    const owner = await createAccount(server);
    const sub = subscription(`owner-${randomUUID()}`);
    await must("/api/v1/user/push-subscriptions", { method: "POST", token: owner.token, json: sub }, 201);
    const pushover = await must(
      "/api/v1/user/pushover",
      { method: "PUT", token: owner.token, json: { userKey: "u".repeat(10) + "abcdefghij1234567890", devices: ["phone"] } },
      200,
    );
    // This server has an application token (PUSH_APP_TOKEN): nothing to warn of.
    expect(pushover).toEqual({ configured: true, userKeyHint: "…7890", devices: ["phone"], available: true });
    expect(await must("/api/v1/user/profile", { token: owner.token }, 200)).toMatchObject({
      pushover: { configured: true, userKeyHint: "…7890", available: true },
    });
    expect((await must("/api/v1/user/profile", { token: owner.token }, 200)).pushover).not.toHaveProperty("notice");
    expect(JSON.stringify(await must("/api/v1/user/profile", { token: owner.token }, 200))).not.toContain("abcdefghij1234567890");

    const { observation, move } = await setUp(owner);
    await move("assigned");
    await move("in_progress");
    await move("failed");
    const subjects = (all: typeof capture.messages) =>
      all.filter((mail) => mail.to.includes(owner.email.toLowerCase()) || mail.to.includes(owner.email)).map((mail) => mail.subject);
    await capture.waitFor((all) => subjects(all).length >= 3);
    expect(subjects(capture.messages)).toEqual([`${observation.name}: assigned`, `${observation.name}: in progress`, `${observation.name}: failed`]);
    const failedMail = capture.messages.find((mail) => mail.subject === `${observation.name}: failed`)!;
    expect(failedMail.text).toContain(`https://meridian.example.org/app/observations/${observation.id}`);
    expect(failedMail.raw).toMatch(/Content-Type: text\/html/i);

    const mine = () => receivers.pushes.filter((push) => push.path === new URL(sub.endpoint).pathname);
    await until("three web pushes", async () => mine().length >= 3);
    for (const push of mine()) {
      expect(push.headers["content-encoding"]).toBe("aes128gcm");
      expect(push.headers.authorization).toMatch(/^vapid t=.+, k=/);
    }
    const forms = () => receivers.pushoverForms.filter((form) => form.user === "u".repeat(10) + "abcdefghij1234567890");
    await until("three Pushover messages", async () => forms().length >= 3);
    expect(forms().map((form) => [form.title, form.priority, form.token, form.device])).toEqual([
      [`${observation.name}: assigned`, "0", "app-token-for-tests", "phone"],
      [`${observation.name}: in progress`, "0", "app-token-for-tests", "phone"],
      [`${observation.name}: failed`, "1", "app-token-for-tests", "phone"],
    ]);
  });

  it("carry a reason too long for a push cut short in the push and whole in the email, and the change still commits", async () => {
    const owner = await createAccount(server);
    const userKey = "l".repeat(10) + randomBytes(10).toString("hex");
    await must("/api/v1/user/pushover", { method: "PUT", token: owner.token, json: { userKey, devices: [] } }, 200);
    const { observation } = await setUp(owner);
    // At the schema's longest (characters, as Pushover counts them), half of them two UTF-16 units each.
    const reason = "🔭a".repeat(500);
    const cancelled = await must(`/observations/${observation.id}/cancel`, { method: "POST", token: owner.token, json: { reason } }, 200);
    expect(cancelled).toMatchObject({ status: "cancelled", statusReason: reason });

    const form = await until("the Pushover message", async () => receivers.pushoverForms.find((each) => each.user === userKey));
    expect(form.title).toBe(`${observation.name}: cancelled`);
    expect(Array.from(form.message!)).toHaveLength(1024);
    expect(form.message).toMatch(new RegExp(`^Your observation "${observation.name}" is now cancelled\\. Reason: (🔭a)+🔭?…$`, "u"));
    const isCancellation = (mail: (typeof capture.messages)[number]) => mail.subject === `${observation.name}: cancelled`;
    const mail = (await capture.waitFor((all) => all.some(isCancellation))).find(isCancellation)!;
    expect(mail.text).toContain(`Reason: ${reason}`);
  });

  it("of many quick status changes arrive in the order of the changes, with two worker processes running jobs", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-notify-worker-"));
    secondWorker = spawnEntry("worker", { ...sharedProcessEnv(server, dataDir), ...deliveryEnv(), LOG_LEVEL: "info" }, "second worker");
    await waitForOutput(secondWorker, /Meridian worker running/);
    const owner = await createAccount(server);
    const userKey = "q".repeat(10) + randomBytes(10).toString("hex");
    await must("/api/v1/user/pushover", { method: "PUT", token: owner.token, json: { userKey, devices: [] } }, 200);
    const { observation, move } = await setUp(owner);
    const statuses = ["assigned", ...Array.from({ length: 10 }, () => ["in_progress", "suspended"]).flat(), "in_progress", "failed"];
    for (const status of statuses) await move(status);
    const expected = statuses.map((status) => `${observation.name}: ${status.replace(/_/g, " ")}`);
    const mine = () => capture.messages.filter((mail) => mail.to.includes(owner.email.toLowerCase())).map((mail) => mail.subject);
    await capture.waitFor(() => mine().length >= expected.length, 30_000);
    expect(mine()).toEqual(expected);
    const forms = () => receivers.pushoverForms.filter((form) => form.user === userKey).map((form) => form.title);
    await until("every Pushover message", async () => forms().length >= expected.length, { timeoutMs: 30_000 });
    expect(forms()).toEqual(expected);
  });

  it("follow the observation's own channels and states, and the profile's switches", async () => {
    const owner = await createAccount(server);
    const sub = subscription(`own-${randomUUID()}`);
    await must("/api/v1/user/push-subscriptions", { method: "POST", token: owner.token, json: sub }, 201);
    const { observation, move } = await setUp(owner, { email: false, push: true, states: ["completed"] });
    for (const status of ["assigned", "in_progress", "acquisition_complete", "completed"]) await move(status);
    const mine = () => receivers.pushes.filter((push) => push.path === new URL(sub.endpoint).pathname);
    await until("the completed push", async () => mine().length >= 1);
    // Switched off in the profile: nothing more.
    await must("/api/v1/user/profile", { method: "PUT", token: owner.token, json: { notificationPreferences: { observationEvents: false } } }, 200);
    const second = await setUp(owner, { email: true, push: true, states: ["assigned"] });
    await second.move("assigned");
    // A marker message after it: once it arrives, anything the move queued would have too.
    await must("/api/v1/user/notifications/test", { method: "POST", token: owner.token }, 200);
    await capture.waitFor((all) => all.some((mail) => mail.subject === "Meridian test notification" && mail.to.includes(owner.email.toLowerCase())));
    expect(capture.messages.some((mail) => mail.subject?.startsWith(observation.name) || mail.subject?.startsWith(`${second.observation.name}:`))).toBe(false);
    expect(mine()).toHaveLength(2);
  });

  it("has a test button with a per-channel result, and forgets a subscription its push service says is gone", async () => {
    const owner = await createAccount(server);
    await must("/api/v1/user/push-subscriptions", { method: "POST", token: owner.token, json: subscription(`live-${randomUUID()}`) }, 201);
    await must("/api/v1/user/push-subscriptions", { method: "POST", token: owner.token, json: subscription(`gone-${randomUUID()}`) }, 201);
    const first = await must("/api/v1/user/notifications/test", { method: "POST", token: owner.token }, 200);
    expect(first).toEqual({ email: "queued", webPush: { sent: 1, failed: 0, removed: 1 }, pushover: "off" });
    const second = await must("/api/v1/user/notifications/test", { method: "POST", token: owner.token }, 200);
    expect(second).toMatchObject({ webPush: { sent: 1, failed: 0, removed: 0 } });
    await expectProblem(await server.request("/api/v1/user/notifications/test", { method: "POST" }), 401, "UNAUTHENTICATED");
    await expectProblem(
      await server.request("/api/v1/user/push-subscriptions", {
        method: "POST",
        token: owner.token,
        json: { endpoint: "not a url", keys: { p256dh: "x", auth: "y" } },
      }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(
      await server.request("/api/v1/user/pushover", { method: "PUT", token: owner.token, json: { userKey: "short" } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(await must("/api/v1/user/push-subscriptions/vapid-public-key", { token: owner.token }, 200)).toEqual({ publicKey: vapid.publicKey });
  });
});

describe("limits of the notification settings", () => {
  it("answers the test button five times an hour per user, then 429 RATE_LIMITED with Retry-After, sending nothing", async () => {
    const owner = await createAccount(server);
    const sub = subscription(`tested-${randomUUID()}`);
    await must("/api/v1/user/push-subscriptions", { method: "POST", token: owner.token, json: sub }, 201);
    for (let index = 0; index < 5; index += 1)
      expect(await must("/api/v1/user/notifications/test", { method: "POST", token: owner.token }, 200)).toEqual({
        email: "queued",
        webPush: { sent: 1, failed: 0, removed: 0 },
        pushover: "off",
      });
    const refused = await server.request("/api/v1/user/notifications/test", { method: "POST", token: owner.token });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const problem = await expectProblem(refused, 429, "RATE_LIMITED");
    expect(problem.detail).toMatch(/^At most 5 test notifications an hour; try again in \d+ minutes?$/);
    // Refused over tRPC too: one count per user, whichever face.
    const trpc = await server.request("/trpc/user.testNotification", { method: "POST", token: owner.token, json: {} });
    expect(trpc.status).toBe(429);
    expect(trpc.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(await trpcErrorCode(trpc)).toBe("RATE_LIMITED");

    // Pushes go out before the answer: the refused calls sent none.
    expect(receivers.pushes.filter((push) => push.path === new URL(sub.endpoint).pathname)).toHaveLength(5);
    // A password reset queued after the refusals reaches the owner after anything they queued: only five tests came before it.
    expect((await server.request("/api/v1/auth/password-reset", { method: "POST", json: { email: owner.email } })).status).toBe(202);
    const mine = (all: typeof capture.messages) => all.filter((mail) => mail.to.includes(owner.email.toLowerCase()));
    await capture.waitFor((all) => mine(all).some((mail) => mail.subject !== "Meridian test notification"));
    expect(mine(capture.messages).filter((mail) => mail.subject === "Meridian test notification")).toHaveLength(5);

    // Another user has their own count.
    const other = await createAccount(server);
    expect(await must("/api/v1/user/notifications/test", { method: "POST", token: other.token }, 200)).toMatchObject({ email: "queued" });
  });

  it("keeps at most 20 web push subscriptions per user: a new one replaces the least recently created, also when sent at once", async () => {
    const owner = await createAccount(server);
    const subscriptions = Array.from({ length: 21 }, (_, index) => subscription(`capped-${index}-${randomUUID()}`));
    for (const sub of subscriptions.slice(0, 20)) await must("/api/v1/user/push-subscriptions", { method: "POST", token: owner.token, json: sub }, 201);
    // Subscribing a stored endpoint again is no new subscription: nothing is replaced.
    await must("/api/v1/user/push-subscriptions", { method: "POST", token: owner.token, json: subscriptions[0] }, 201);
    expect(await must("/api/v1/user/notifications/test", { method: "POST", token: owner.token }, 200)).toMatchObject({ webPush: { sent: 20 } });

    // The 21st is stored (a new browser is never refused) and the first, the least recently created, is gone.
    await must("/api/v1/user/push-subscriptions", { method: "POST", token: owner.token, json: subscriptions[20] }, 201);
    const unsubscribe = (sub: { endpoint: string }) =>
      server.request("/api/v1/user/push-subscriptions", { method: "DELETE", token: owner.token, json: { endpoint: sub.endpoint } });
    await expectProblem(await unsubscribe(subscriptions[0]!), 404, "NOT_FOUND");
    expect((await unsubscribe(subscriptions[1]!)).status).toBe(204);
    const pushedTo = (sub: { endpoint: string }) => receivers.pushes.filter((push) => push.path === new URL(sub.endpoint).pathname).length;
    expect(await must("/api/v1/user/notifications/test", { method: "POST", token: owner.token }, 200)).toMatchObject({ webPush: { sent: 19 } });
    expect(pushedTo(subscriptions[20]!)).toBe(1);

    // Thirty at once: every one is accepted, and the user still holds twenty, all of them from the burst.
    const burst = Array.from({ length: 30 }, (_, index) => subscription(`burst-${index}-${randomUUID()}`));
    const answers = await Promise.all(burst.map((sub) => server.request("/api/v1/user/push-subscriptions", { method: "POST", token: owner.token, json: sub })));
    expect(answers.map((answer) => answer.status)).toEqual(burst.map(() => 201));
    expect(await must("/api/v1/user/notifications/test", { method: "POST", token: owner.token }, 200)).toMatchObject({ webPush: { sent: 20, failed: 0 } });
    expect(burst.filter((sub) => pushedTo(sub) === 1)).toHaveLength(20);
    // Older than every one of the burst: replaced, so this test pushed nothing more to it.
    expect(pushedTo(subscriptions[20]!)).toBe(1);
  });
});

describe("the stale-observation monitor", () => {
  it("reports an observation stuck in assigned past the threshold once, to operators and admins, and flags it", async () => {
    const owner = await createAccount(server);
    const { observation, move } = await setUp(owner);
    await move("assigned");
    const deps = server.server.runtime.deps;
    const later = (hours: number) => ({ ...deps, now: () => new Date(Date.now() + hours * 3_600_000) });
    expect(await reportStaleObservations({ deps: later(47) })).not.toContain(observation.id);
    expect(await reportStaleObservations({ deps: later(49) })).toContain(observation.id);
    expect(await reportStaleObservations({ deps: later(50) })).not.toContain(observation.id);
    const detail = (await must(`/observations/${observation.id}`, { token: owner.token }, 200)) as { stale: { status: string } | null };
    expect(detail.stale).toMatchObject({ status: "assigned" });
    const subject = `Observation "${observation.name}" stuck in assigned`;
    await capture.waitFor((all) => all.filter((mail) => mail.subject === subject).length >= 2);
    const recipients = capture.messages.filter((mail) => mail.subject === subject).flatMap((mail) => mail.to.map((to) => to.toLowerCase()));
    expect(recipients.sort()).toEqual([ADMIN.email, owner.email.toLowerCase()].sort());
    // Moving on clears the flag.
    await move("in_progress");
    expect(((await must(`/observations/${observation.id}`, { token: owner.token }, 200)) as { stale: unknown }).stale).toBeNull();
  });

  it("reports an observation in progress past its own threshold (24 hours) once, and counts the stay from the move", async () => {
    const owner = await createAccount(server);
    const { observation, move } = await setUp(owner);
    await move("assigned");
    await move("in_progress");
    const deps = server.server.runtime.deps;
    const later = (hours: number) => ({ ...deps, now: () => new Date(Date.now() + hours * 3_600_000) });
    // Its threshold is its own (24 hours), not the assigned one (48): 23 hours is not stale, 25 is.
    expect(await reportStaleObservations({ deps: later(23) })).not.toContain(observation.id);
    expect(await reportStaleObservations({ deps: later(25) })).toContain(observation.id);
    expect(await reportStaleObservations({ deps: later(26) })).not.toContain(observation.id);
    const detail = (await must(`/observations/${observation.id}`, { token: owner.token }, 200)) as { stale: { status: string } | null };
    expect(detail.stale).toMatchObject({ status: "in_progress" });
    const subject = `Observation "${observation.name}" stuck in in progress`;
    await capture.waitFor((all) => all.filter((mail) => mail.subject === subject).length >= 2);
    const recipients = capture.messages.filter((mail) => mail.subject === subject).flatMap((mail) => mail.to.map((to) => to.toLowerCase()));
    expect(recipients.sort()).toEqual([ADMIN.email, owner.email.toLowerCase()].sort());
  });

  it("tells nobody who switched system events off, and still flags the observation", async () => {
    const owner = await createAccount(server);
    await must("/api/v1/user/profile", { method: "PUT", token: owner.token, json: { notificationPreferences: { systemEvents: false } } }, 200);
    const { observation, move } = await setUp(owner);
    await move("assigned");
    const deps = server.server.runtime.deps;
    expect(await reportStaleObservations({ deps: { ...deps, now: () => new Date(Date.now() + 49 * 3_600_000) } })).toContain(observation.id);
    const subject = `Observation "${observation.name}" stuck in assigned`;
    // The admin, who wants system events, is told; the owner, who does not, is not (the admin's mail is the sign that the fan-out ran).
    await capture.waitFor((all) => all.some((mail) => mail.subject === subject));
    const outbox = await deps.db.execute<{ to: string }>(sql`select lower(doc->>'to') as to from email_outbox where doc->>'subject' = ${subject}`);
    expect(outbox.map((row) => row.to)).toEqual([ADMIN.email]);
    expect(((await must(`/observations/${observation.id}`, { token: owner.token }, 200)) as { stale: unknown }).stale).not.toBeNull();
  });
});

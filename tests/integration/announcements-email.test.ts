import { randomBytes } from "node:crypto";
import { connectDatabase, type DatabaseHandle } from "@meridian/db";
import { announceStarted, deliverAnnouncementEmails, runAnnouncementMaintenance } from "@meridian/domain/announcements";
import { type Deps, type MailMessage, type MailTransport } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, loginSession, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { startSmtpCapture, type CapturedMail } from "../support/smtp-capture";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * Announcement email through the outbox path of the contract: one message per recipient for
 * `email` and `both`, none for `message`; reply-to SUPPORT_EMAIL for system announcements and
 * the creator's address for scoped ones; `emailedAt` in the recipients view; and no duplicate
 * and no loss when delivery breaks part-way and is retried, by the real worker over SMTP and by
 * driving the delivery function directly.
 */

const SUPPORT_EMAIL = "support@meridian.test";
const ADMIN = { email: "motd-email-admin@example.com", password: "motd email admin password" };

let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let database: DatabaseHandle;
let admin: Account;
const api = jsonApi(() => server);

interface Announcement {
  id: string;
  scope: string;
  status: string;
  deliveryType: string;
  recipientCount: number;
  acknowledgedCount: number;
}
interface RecipientsView {
  items: Array<{ userId: string; email: string; status: string; acknowledgedAt: string | null; emailedAt: string | null }>;
  counts: { total: number; acknowledged: number; pending: number; emailed: number };
}

const uniqueTitle = (label: string) => `${label} ${randomBytes(4).toString("hex")}`;
const body = (title: string, fields: Record<string, unknown> = {}) => ({
  title,
  message: `Details of ${title}.\nSecond line.`,
  severity: "info",
  deliveryType: "email",
  ...fields,
});

const systemAnnouncement = async (as: Account, json: Record<string, unknown>, users: Account[]) =>
  (await api.must(
    "/api/v1/system/motd",
    { method: "POST", token: as.token, json: { ...json, targets: { users: { ids: users.map((user) => user.id) } } } },
    201,
  )) as Announcement;
const recipientsView = async (base: string, id: string, as: Account) =>
  (await api.must(`${base}/motd/${id}/recipients?limit=200`, { token: as.token })) as RecipientsView;

/** The messages of one announcement, told apart by its unique subject. */
const mailsWith = (messages: CapturedMail[], subject: string) => messages.filter((message) => message.subject === subject);
const lower = (value: string) => value.toLowerCase();
/** How many messages each address received. */
const perRecipient = (messages: CapturedMail[]) => {
  const counts = new Map<string, number>();
  for (const message of messages) for (const to of message.to) counts.set(lower(to), (counts.get(lower(to)) ?? 0) + 1);
  return Object.fromEntries([...counts].sort());
};
const oncePerRecipient = (users: Account[]) => Object.fromEntries(users.map((user) => [lower(user.email), 1] as const).sort());

/** Email jobs still queued or running for the announcement. */
async function emailJobsOf(db: DatabaseHandle, announcementId: string) {
  const rows = await db.db.execute<{ count: number }>(
    sql`select count(*)::int as count from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
         where t.identifier = 'announcement_emails' and j.payload->>'announcementId' = ${announcementId}`,
  );
  return rows[0]!.count;
}

/** Waits until the worker has finished the announcement's delivery: every message out, no job left. */
async function delivered(base: string, announcement: Announcement, as: Account) {
  return until(
    `the emails of ${announcement.id}`,
    async () => {
      const view = await recipientsView(base, announcement.id, as);
      const sent = view.counts.emailed === announcement.recipientCount && view.items.every((item) => item.emailedAt !== null);
      return sent && (await emailJobsOf(database, announcement.id)) === 0 ? view : undefined;
      // Retries back off; on a busy CI machine a round of them can take a while.
    },
    { timeoutMs: 60_000 },
  );
}

beforeAll(async () => {
  capture = await startSmtpCapture();
  server = await startTestServer({ ...roomyLimits, SMTP_URL: capture.url, SUPPORT_EMAIL, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  database = connectDatabase(server.databaseUrl, { max: 2 });
  const { token } = await loginSession(server, ADMIN);
  admin = { id: (await api.must("/api/v1/auth/me", { token })).id, ...ADMIN, token };
  // The start notification goes through the same capture: let it arrive before counting anything.
  await capture.waitFor((all) => all.some((message) => message.subject?.includes("started on")));
});

afterAll(async () => {
  await database?.close();
  await server?.stop();
  await capture?.stop();
});

describe("announcement email through the worker and SMTP", () => {
  it("system, delivery email: one message per recipient, reply-to SUPPORT_EMAIL, acknowledged at creation, emailedAt once sent", async () => {
    const users = await Promise.all([createAccount(server), createAccount(server), createAccount(server)]);
    const bystander = await createAccount(server);
    const title = uniqueTitle("Dome closed");
    const created = await systemAnnouncement(admin, body(title, { severity: "critical" }), users);
    // Email recipients are acknowledged at creation: with all of them emailed, the announcement is.
    expect(created).toMatchObject({ scope: "system", deliveryType: "email", status: "acknowledged", recipientCount: 3, acknowledgedCount: 3 });

    const view = await delivered("/api/v1/system", created, admin);
    const subject = `[CRITICAL] ${title}`;
    const mails = mailsWith(capture.messages, subject);
    expect(perRecipient(mails)).toEqual(oncePerRecipient(users));
    for (const mail of mails) {
      expect(mail.replyTo).toBe(SUPPORT_EMAIL);
      expect(mail.from).toBe("no-reply@meridian.local");
      expect(mail.to).toHaveLength(1);
      expect(mail.text).toContain(`Details of ${title}.\nSecond line.`);
      expect(mail.text).toContain("the Meridian administrators");
    }
    expect(new Set(mails.map((mail) => mail.messageId)).size).toBe(3);
    expect(capture.messages.some((message) => message.to.map(lower).includes(lower(bystander.email)))).toBe(false);

    expect(view.counts).toMatchObject({ total: 3, acknowledged: 3, pending: 0, emailed: 3 });
    for (const item of view.items) {
      expect(item).toMatchObject({ status: "acknowledged", acknowledgedAt: expect.any(String), emailedAt: expect.any(String) });
      expect(Date.parse(item.emailedAt!)).toBeGreaterThanOrEqual(Date.parse(item.acknowledgedAt!));
    }
    for (const user of users)
      expect((await api.must("/api/v1/user/motd/pending", { token: user.token })).items.map((item: { id: string }) => item.id)).not.toContain(created.id);
    // Nothing to cancel: it is acknowledged.
    await expectProblem(
      await server.request(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: admin.token, json: { reason: "too late" } }),
      409,
      "INVALID_TRANSITION",
    );
  });

  it("system, delivery both: shown in the app and emailed, warning in the subject", async () => {
    const users = await Promise.all([createAccount(server), createAccount(server)]);
    const title = uniqueTitle("Both ways");
    const created = await systemAnnouncement(admin, body(title, { deliveryType: "both", severity: "warning" }), users);
    expect(created).toMatchObject({ deliveryType: "both", status: "acknowledged", acknowledgedCount: 2 });
    await delivered("/api/v1/system", created, admin);
    const mails = mailsWith(capture.messages, `[WARNING] ${title}`);
    expect(perRecipient(mails)).toEqual(oncePerRecipient(users));
    expect(mails.every((mail) => mail.replyTo === SUPPORT_EMAIL)).toBe(true);
    const current = (await api.must("/api/v1/user/motd/current", { token: users[0]!.token })).items as Array<{ id: string; acknowledgedAt: string | null }>;
    expect(current.find((item) => item.id === created.id)?.acknowledgedAt).toEqual(expect.any(String));
  });

  it.each([
    ["observatory", "email"],
    ["organization", "both"],
    ["project", "email"],
  ] as const)("%s, delivery %s: one message per recipient, the creator included, reply-to the creator's address", async (kind, deliveryType) => {
    const [owner, sender, memberA, memberB] = await Promise.all([createAccount(server), createAccount(server), createAccount(server), createAccount(server)]);
    const outsider = await createAccount(server);
    let base: string;
    if (kind === "observatory") {
      const observatory = await api.createObservatory(owner);
      base = `/observatories/${observatory.id}`;
      await api.addObservatoryMember(owner, observatory.id, sender, { can_admin: true });
      await api.addObservatoryMember(owner, observatory.id, memberA, { can_view: true });
      const organization = await api.createOrganization(outsider);
      await api.addOrganizationMember(outsider, organization.id, memberB);
      await api.addObservatoryOrganization(owner, observatory.id, organization.id, { can_view: true });
    } else if (kind === "organization") {
      const organization = await api.createOrganization(owner);
      base = `/organizations/${organization.id}`;
      await api.addOrganizationMember(owner, organization.id, sender, { can_manage_members: true });
      await api.addOrganizationMember(owner, organization.id, memberA);
      await api.addOrganizationMember(owner, organization.id, memberB);
    } else {
      const project = await api.must("/projects", { method: "POST", token: owner.token, json: { name: "Emailed project" } }, 201);
      base = `/projects/${project.id}`;
      await api.must(`${base}/members`, { method: "POST", token: owner.token, json: { email: sender.email, role: "admin" } }, 201);
      await api.must(`${base}/members`, { method: "POST", token: owner.token, json: { email: memberA.email, role: "member" } }, 201);
      await api.must(`${base}/members`, { method: "POST", token: owner.token, json: { email: memberB.email, role: "member" } }, 201);
    }
    // In the observatory case `outsider` owns a member organization: it receives too.
    const recipients = kind === "observatory" ? [owner, sender, memberA, memberB, outsider] : [owner, sender, memberA, memberB];

    const title = uniqueTitle(`${kind} notice`);
    const created = (await api.must(`${base}/motd`, { method: "POST", token: sender.token, json: body(title, { deliveryType }) }, 201)) as Announcement;
    expect(created).toMatchObject({
      scope: kind,
      deliveryType,
      status: "acknowledged",
      recipientCount: recipients.length,
      acknowledgedCount: recipients.length,
    });

    const view = await delivered(base, created, sender);
    expect(view.items.map((item) => item.userId).sort()).toEqual(recipients.map((user) => user.id).sort());
    expect(view.items.every((item) => item.emailedAt !== null)).toBe(true);
    const mails = mailsWith(capture.messages, title);
    expect(perRecipient(mails)).toEqual(oncePerRecipient(recipients));
    for (const mail of mails) {
      expect(lower(mail.replyTo ?? "")).toBe(lower(sender.email));
      expect(mail.text).toContain(`Details of ${title}.`);
    }
  });

  it("limits each sender to 10 email announcements an hour across scopes: then 429 RATE_LIMITED, nothing created; in-app ones and others go on", async () => {
    // A project owner may add any registered address as a member and email it: the limit is the sender's, whatever the scope.
    const [sender, member, otherSender] = await Promise.all([createAccount(server), createAccount(server), createAccount(server)]);
    const project = (await api.must("/projects", { method: "POST", token: sender.token, json: { name: "Mailing list" } }, 201)) as { id: string };
    await api.must(`/projects/${project.id}/members`, { method: "POST", token: sender.token, json: { email: member.email, role: "member" } }, 201);
    const organization = await api.createOrganization(sender);
    await api.addOrganizationMember(sender, organization.id, member);
    const scopes = [`/projects/${project.id}`, `/organizations/${organization.id}`];
    const title = uniqueTitle("Newsletter");
    const post = (base: string, json: Record<string, unknown>) => server.request(`${base}/motd`, { method: "POST", token: sender.token, json });

    const sent: Announcement[] = [];
    for (let index = 0; index < 10; index += 1)
      sent.push(
        (await api.must(
          `${scopes[index % 2]}/motd`,
          { method: "POST", token: sender.token, json: body(`${title} ${index}`, { deliveryType: index % 3 === 0 ? "both" : "email" }) },
          201,
        )) as Announcement,
      );
    for (const [index, base] of scopes.entries()) {
      const refused = await post(base, body(`${title} refused ${index}`, { deliveryType: index === 0 ? "email" : "both" }));
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      const problem = await expectProblem(refused, 429, "RATE_LIMITED");
      expect(problem.detail).toMatch(
        /^At most 10 announcements by email \(of organizations, observatories and projects together\) an hour; try again in \d+ minutes?$/,
      );
    }
    // Announcements shown only in the app are not counted, and other senders have their own count.
    expect(
      await api.must(`${scopes[0]}/motd`, { method: "POST", token: sender.token, json: body(`${title} in the app`, { deliveryType: "message" }) }, 201),
    ).toMatchObject({
      deliveryType: "message",
    });
    await api.addOrganizationMember(sender, organization.id, otherSender, { can_manage_members: true });
    const other = (await api.must(`${scopes[1]}/motd`, { method: "POST", token: otherSender.token, json: body(`${title} other sender`) }, 201)) as Announcement;
    expect(other).toMatchObject({ deliveryType: "email" });

    // The refused ones were not created, and the member got exactly the ten that were.
    for (const base of scopes) {
      const history = (await api.must(`${base}/motd/history?limit=200`, { token: sender.token }, 200)) as { items: Array<{ title: string }> };
      expect(history.items.map((item) => item.title).filter((name) => name.includes("refused"))).toEqual([]);
    }
    for (const [index, announcement] of sent.entries()) await delivered(scopes[index % 2]!, announcement, sender);
    await delivered(scopes[1]!, other, otherSender);
    const toMember = capture.messages.filter((mail) => mail.subject?.startsWith(`${title} `) && mail.to.some((to) => lower(to) === lower(member.email)));
    expect(toMember.map((mail) => mail.subject).sort()).toEqual(
      [...Array.from({ length: 10 }, (_, index) => `${title} ${index}`), `${title} other sender`].sort(),
    );
  });

  it("delivery message: no email job and no message; nobody is emailed", async () => {
    const users = await Promise.all([createAccount(server), createAccount(server)]);
    const title = uniqueTitle("In the app only");
    const created = await systemAnnouncement(admin, body(title, { deliveryType: "message" }), users);
    expect(created).toMatchObject({ deliveryType: "message", status: "active", acknowledgedCount: 0 });
    expect(await emailJobsOf(database, created.id)).toBe(0);

    // An emailed announcement to the same users made afterwards goes out; the first never does.
    const laterTitle = uniqueTitle("Emailed afterwards");
    const later = await systemAnnouncement(admin, body(laterTitle), users);
    await delivered("/api/v1/system", later, admin);
    expect(perRecipient(mailsWith(capture.messages, laterTitle))).toEqual(oncePerRecipient(users));
    expect(mailsWith(capture.messages, title)).toEqual([]);
    expect(capture.messages.some((message) => message.text?.includes(`Details of ${title}.`))).toBe(false);
    const view = await recipientsView("/api/v1/system", created.id, admin);
    expect(view.counts).toMatchObject({ total: 2, acknowledged: 0, emailed: 0 });
    expect(view.items.every((item) => item.emailedAt === null)).toBe(true);
    for (const user of users)
      expect((await api.must("/api/v1/user/motd/pending", { token: user.token })).items.map((item: { id: string }) => item.id)).toContain(created.id);
  });

  it("SMTP refusing part-way: the job fails, graphile-worker retries, every recipient ends with exactly one message", async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => createAccount(server)));
    const title = uniqueTitle("Interrupted");
    // The first two go through, the next two are refused (the job throws twice), then SMTP recovers.
    capture.failAfter(2, 2, (mail) => mail.subject === title);

    // graphile-worker backs off exp(attempts) seconds between attempts; bring retries forward.
    let accelerating = true;
    const accelerator = (async () => {
      while (accelerating) {
        await database.db.execute(sql`update graphile_worker._private_jobs set run_at = now() where locked_at is null and attempts > 0 and run_at > now()`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    let created: Announcement;
    try {
      created = await systemAnnouncement(admin, body(title), users);
      await delivered("/api/v1/system", created, admin);
    } finally {
      accelerating = false;
      await accelerator;
    }

    expect(mailsWith(capture.refused, title)).toHaveLength(2);
    const mails = mailsWith(capture.messages, title);
    expect(perRecipient(mails)).toEqual(oncePerRecipient(users));
    expect(new Set(mails.map((mail) => mail.messageId)).size).toBe(6);
    // The refused messages were tried again for the same recipients, not for new ones.
    for (const refused of mailsWith(capture.refused, title)) expect(mails.map((mail) => mail.messageId)).toContain(refused.messageId);
    const view = await recipientsView("/api/v1/system", created.id, admin);
    expect(view.counts).toMatchObject({ total: 6, emailed: 6 });
  });
});

describe("deliverAnnouncementEmails driven directly (no worker)", () => {
  let quiet: TestServer;
  let quietAdmin: Account;
  let deps: Deps;
  const quietApi = jsonApi(() => quiet);

  beforeAll(async () => {
    const adminAccount = { email: "motd-email-direct@example.com", password: "direct admin password" };
    // Without a worker, nothing runs the queued jobs: the test drives delivery itself.
    quiet = await startTestServer({
      ...roomyLimits,
      MERIDIAN_ROLE: "server",
      SUPPORT_EMAIL,
      ADMIN_EMAIL: adminAccount.email,
      ADMIN_PASSWORD: adminAccount.password,
    });
    const { token } = await loginSession(quiet, adminAccount);
    quietAdmin = { id: (await quietApi.must("/api/v1/auth/me", { token })).id, ...adminAccount, token };
    deps = quiet.server.runtime.deps;
  });
  afterAll(() => quiet?.stop());

  /** A transport that records what it sends and fails when `fail` says so for a message. */
  function recordingTransport(fail: (message: MailMessage, index: number) => boolean | Promise<never> = () => false) {
    const sent: MailMessage[] = [];
    let calls = 0;
    const transport: MailTransport = {
      description: "test transport",
      async send(message) {
        const index = calls++;
        const outcome = fail(message, index);
        if (outcome instanceof Promise) return outcome;
        if (outcome) throw Object.assign(new Error("451 temporary failure"), { responseCode: 451 });
        sent.push(message);
      },
      close() {},
    };
    return { transport, sent };
  }
  const counted = (messages: MailMessage[]) => {
    const counts = new Map<string, number>();
    for (const message of messages) counts.set(lower(message.to), (counts.get(lower(message.to)) ?? 0) + 1);
    return Object.fromEntries([...counts].sort());
  };
  const emailAnnouncement = async (users: Account[], fields: Record<string, unknown> = {}) => {
    const created = (await quietApi.must(
      "/api/v1/system/motd",
      { method: "POST", token: quietAdmin.token, json: { ...body(uniqueTitle("Direct"), fields), targets: { users: { ids: users.map((user) => user.id) } } } },
      201,
    )) as Announcement;
    return created;
  };
  const emailedOf = async (id: string) =>
    ((await quietApi.must(`/api/v1/system/motd/${id}/recipients?limit=200`, { token: quietAdmin.token })) as RecipientsView).items
      .filter((item) => item.emailedAt)
      .map((item) => item.userId)
      .sort();

  it("a delivery that throws after N sends, run again, gives every recipient exactly one message", async () => {
    const users = await Promise.all(Array.from({ length: 7 }, () => createAccount(quiet)));
    const created = await emailAnnouncement(users);
    const first = recordingTransport((_message, index) => index >= 3);
    await expect(deliverAnnouncementEmails({ deps, transport: first.transport, announcementId: created.id })).rejects.toThrow("temporary failure");
    expect(first.sent).toHaveLength(3);
    expect(await emailedOf(created.id)).toEqual(
      users
        .filter((user) => first.sent.some((message) => lower(message.to) === lower(user.email)))
        .map((user) => user.id)
        .sort(),
    );

    const second = recordingTransport();
    expect(await deliverAnnouncementEmails({ deps, transport: second.transport, announcementId: created.id })).toEqual({ sent: 4, skipped: 0 });
    expect(counted([...first.sent, ...second.sent])).toEqual(oncePerRecipient(users));
    for (const message of [...first.sent, ...second.sent]) expect(message.replyTo).toBe(SUPPORT_EMAIL);
    expect(await emailedOf(created.id)).toEqual(users.map((user) => user.id).sort());

    // A third run (a duplicate job) finds nothing left to send.
    const third = recordingTransport();
    expect(await deliverAnnouncementEmails({ deps, transport: third.transport, announcementId: created.id })).toEqual({ sent: 0, skipped: 0 });
    expect(third.sent).toEqual([]);
  });

  it("a worker that dies holding a batch: another leaves the live claim alone, and after the lease sends only what was not sent", async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => createAccount(quiet)));
    const created = await emailAnnouncement(users);
    let abandon!: (error: Error) => void;
    const hang = new Promise<never>((_resolve, reject) => (abandon = reject));
    const crashed = recordingTransport((_message, index) => (index === 2 ? hang : false));
    // The "crashed" worker: it sent two messages, then hangs forever on the third.
    const stuck = deliverAnnouncementEmails({ deps, transport: crashed.transport, announcementId: created.id }).catch((error: Error) => error);
    await until("the crashed worker to send two messages", async () => crashed.sent.length === 2 && (await emailedOf(created.id)).length === 2);

    // Another worker now: the batch is claimed and the claim is fresh, so it sends nothing.
    const meanwhile = recordingTransport();
    expect(await deliverAnnouncementEmails({ deps, transport: meanwhile.transport, announcementId: created.id })).toEqual({ sent: 0, skipped: 0 });

    // Once the claim's lease has run out, the rest is claimed again and sent, the first two not.
    const later = new Date(Date.now() + 10 * 60_000);
    const recovering = recordingTransport();
    expect(await deliverAnnouncementEmails({ deps: { ...deps, now: () => later }, transport: recovering.transport, announcementId: created.id })).toEqual({
      sent: 3,
      skipped: 0,
    });
    expect(counted([...crashed.sent, ...recovering.sent])).toEqual(oncePerRecipient(users));
    expect(await emailedOf(created.id)).toEqual(users.map((user) => user.id).sort());

    // The dead worker's send finally fails: giving its claims back must not undo what was sent since.
    abandon(new Error("connection lost"));
    expect(await stuck).toBeInstanceOf(Error);
    const after = recordingTransport();
    expect(await deliverAnnouncementEmails({ deps, transport: after.transport, announcementId: created.id })).toEqual({ sent: 0, skipped: 0 });
    expect(await emailedOf(created.id)).toEqual(users.map((user) => user.id).sort());
  });

  it("a recipient whose messages keep failing costs the others nothing: they get exactly one each", async () => {
    // Recipients are claimed in id order and user ids grow with time: the first account comes first.
    const bad = await createAccount(quiet);
    const others = await Promise.all(Array.from({ length: 5 }, () => createAccount(quiet)));
    const created = await emailAnnouncement([bad, ...others]);
    const sent: MailMessage[] = [];
    let finished = false;
    for (let attempt = 0; attempt < 12 && !finished; attempt += 1) {
      const run = recordingTransport((message) => lower(message.to) === lower(bad.email));
      finished = await deliverAnnouncementEmails({ deps, transport: run.transport, announcementId: created.id }).then(
        () => true,
        () => false,
      );
      sent.push(...run.sent);
    }
    expect(finished).toBe(true);
    expect(counted(sent)).toEqual(oncePerRecipient(others));
    expect(await emailedOf(created.id)).toEqual(others.map((user) => user.id).sort());
    // The sender sees who was given up on, and why.
    const view = (await quietApi.must(`/api/v1/system/motd/${created.id}/recipients?limit=200`, { token: quietAdmin.token })) as {
      items: Array<{ userId: string; emailState: string | null; emailError: string | null }>;
      counts: { emailFailed: number };
    };
    expect(view.counts.emailFailed).toBe(1);
    expect(view.items.find((item) => item.userId === bad.id)).toMatchObject({ emailState: "failed", emailError: expect.stringContaining("451") });
    expect(view.items.filter((item) => item.userId !== bad.id).every((item) => item.emailState === "sent" && item.emailError === null)).toBe(true);
  });

  it("an email announcement cannot be cancelled (acknowledged at creation); one found cancelled sends nothing more", async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => createAccount(quiet)));
    const created = await emailAnnouncement(users);
    await expectProblem(
      await quiet.request(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: quietAdmin.token, json: { reason: "Changed my mind" } }),
      409,
      "INVALID_TRANSITION",
    );

    const first = recordingTransport((_message, index) => index >= 1);
    await expect(deliverAnnouncementEmails({ deps, transport: first.transport, announcementId: created.id })).rejects.toThrow();
    expect(first.sent).toHaveLength(1);
    // The state a cancellation leaves behind (the API refuses it here, see above).
    await deps.db.execute(sql`update announcements set status = 'cancelled', doc = doc || '{"status":"cancelled"}'::jsonb where id = ${created.id}`);
    const second = recordingTransport();
    expect(await deliverAnnouncementEmails({ deps, transport: second.transport, announcementId: created.id })).toEqual({ sent: 0, skipped: 3 });
    expect(second.sent).toEqual([]);
    expect(await emailedOf(created.id)).toHaveLength(1);
    // And it stays so: nothing is pending any more.
    expect(await deliverAnnouncementEmails({ deps, transport: second.transport, announcementId: created.id })).toEqual({ sent: 0, skipped: 0 });
  });

  it("a scheduled email announcement is queued for its start and sends nothing before it", async () => {
    const users = await Promise.all([createAccount(quiet), createAccount(quiet)]);
    const startsAt = new Date(Date.now() + 60 * 60_000);
    const created = await emailAnnouncement(users, { startsAt: startsAt.toISOString() });
    const db = connectDatabase(quiet.databaseUrl, { max: 1 });
    try {
      const jobs = await db.db.execute<{
        run_at: Date;
      }>(sql`select j.run_at from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
         where t.identifier = 'announcement_emails' and j.payload->>'announcementId' = ${created.id}`);
      expect(jobs.map((job) => new Date(job.run_at).toISOString())).toEqual([startsAt.toISOString()]);
    } finally {
      await db.close();
    }
    const early = recordingTransport();
    expect(await deliverAnnouncementEmails({ deps, transport: early.transport, announcementId: created.id })).toEqual({ sent: 0, skipped: 0 });
    expect(early.sent).toEqual([]);
    const onTime = recordingTransport();
    const started = new Date(startsAt.getTime() + 1000);
    expect(await deliverAnnouncementEmails({ deps: { ...deps, now: () => started }, transport: onTime.transport, announcementId: created.id })).toEqual({
      sent: 2,
      skipped: 0,
    });
    expect(counted(onTime.sent)).toEqual(oncePerRecipient(users));
  });

  it("the minute sweep queues delivery again while emails are due, and stops once every one went out", async () => {
    const users = await Promise.all(Array.from({ length: 3 }, () => createAccount(quiet)));
    const created = await emailAnnouncement(users);
    const queuedJobs = async () =>
      (
        await deps.db.execute<{
          count: number;
        }>(sql`select count(*)::int as count from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
           where t.identifier = 'announcement_emails' and j.payload->>'announcementId' = ${created.id}`)
      )[0]!.count;
    const emailPending = async () =>
      (await deps.db.execute<{ email_pending: boolean }>(sql`select email_pending from announcements where id = ${created.id}`))[0]!.email_pending;
    // The job queued at creation is dropped, as if a worker had died holding it.
    await deps.db.execute(sql`delete from graphile_worker._private_jobs j using graphile_worker._private_tasks t
       where t.id = j.task_id and t.identifier = 'announcement_emails' and j.payload->>'announcementId' = ${created.id}`);
    expect(await emailPending()).toBe(true);
    await runAnnouncementMaintenance({ deps });
    expect(await queuedJobs()).toBe(1);

    const run = recordingTransport();
    expect(await deliverAnnouncementEmails({ deps, transport: run.transport, announcementId: created.id })).toEqual({ sent: 3, skipped: 0 });
    expect(await emailPending()).toBe(false);
    await deps.db.execute(sql`delete from graphile_worker._private_jobs j using graphile_worker._private_tasks t
       where t.id = j.task_id and t.identifier = 'announcement_emails' and j.payload->>'announcementId' = ${created.id}`);
    await runAnnouncementMaintenance({ deps });
    expect(await queuedJobs()).toBe(0);
  });

  it("a scheduled email announcement stays active (and cancellable) until it starts; cancelled, it sends nothing", async () => {
    const users = await Promise.all([createAccount(quiet), createAccount(quiet)]);
    const startsAt = new Date(Date.now() + 60 * 60_000);
    const created = await emailAnnouncement(users, { startsAt: startsAt.toISOString() });
    expect(created).toMatchObject({ status: "active", acknowledgedCount: 0 });
    const cancelled = await quietApi.must(
      `/api/v1/system/motd/${created.id}`,
      { method: "DELETE", token: quietAdmin.token, json: { reason: "Maintenance moved" } },
      200,
    );
    expect(cancelled).toMatchObject({ status: "cancelled", cancellationReason: "Maintenance moved" });
    const started = new Date(startsAt.getTime() + 1000);
    const onTime = recordingTransport();
    expect(await deliverAnnouncementEmails({ deps: { ...deps, now: () => started }, transport: onTime.transport, announcementId: created.id })).toEqual({
      sent: 0,
      skipped: 2,
    });
    expect(onTime.sent).toEqual([]);
  });

  it("a scheduled email announcement acknowledges its recipients when it starts", async () => {
    const users = await Promise.all([createAccount(quiet), createAccount(quiet)]);
    const startsAt = new Date(Date.now() + 60 * 60_000);
    const created = await emailAnnouncement(users, { startsAt: startsAt.toISOString() });
    await announceStarted({ deps: { ...deps, now: () => new Date(startsAt.getTime() + 1000) }, announcementId: created.id });
    const view = (await quietApi.must(`/api/v1/system/motd/${created.id}/recipients`, { token: quietAdmin.token })) as RecipientsView;
    expect(view.counts).toMatchObject({ total: 2, acknowledged: 2, pending: 0 });
    const listed = (await quietApi.must("/api/v1/system/motd?status=acknowledged", { token: quietAdmin.token })) as { items: Announcement[] };
    expect(listed.items.map((item) => item.id)).toContain(created.id);
  });
});

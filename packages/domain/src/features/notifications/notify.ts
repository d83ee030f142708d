import { usersCollection, type Executor, type ObservationDoc, type StoredDocument, type UserDoc } from "@meridian/db";
import type { ObservationStatus } from "@meridian/rules";
import { appLink } from "../../platform/email/app-link";
import { enqueueEmail } from "../../platform/email/outbox";
import { frameCounts } from "./frame-counts";
import { addJob } from "../../platform/jobs/add-job";
import type { InTransaction } from "../../platform/transaction";
import type { PushMessage } from "./push-channels";

/** A push's parts at their longest: Pushover's own limits (title 250, message 1,024 characters), kept for web push too. */
export const PUSH_LIMITS = { title: 250, message: 1024, url: 500 } as const;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
const label = (status: string) => status.replace(/_/g, " ");

/** `text` cut to `limit` characters (code points, as the job's schema and Pushover count them) with an ellipsis. */
function fitted(text: string, limit: number): string {
  const characters = Array.from(text);
  return characters.length <= limit ? text : `${characters.slice(0, limit - 1).join("")}…`;
}

/**
 * A push to one user, as a job written in the caller's transaction: it goes out only if the change
 * commits, with retries. A user's pushes share a queue, so they arrive in the order of the changes
 * (an observation's "in progress" never before its "assigned"). A title or message longer than a
 * push carries (a long reason, an announcement's body) is cut short: the change it tells of still
 * commits, and the email or the app holds the whole text. A link too long to carry is left out.
 */
async function queuePush(options: { t: Pick<InTransaction, "tx">; userId: string } & PushMessage) {
  const { t, userId, title, message, url, priority } = options;
  const payload = {
    userId,
    title: fitted(title, PUSH_LIMITS.title),
    message: fitted(message, PUSH_LIMITS.message),
    url: url !== null && Array.from(url).length <= PUSH_LIMITS.url ? url : null,
    priority,
  };
  await addJob({ t, name: "send_push", payload });
}

/** An email in text and HTML with one link, to a user who wants that kind of message. */
async function emailUser(
  t: Pick<InTransaction, "tx">,
  user: StoredDocument<UserDoc>,
  message: { kind: string; subject: string; lines: string[]; link: string },
) {
  const text = [`Hello ${user.doc.name},`, "", ...message.lines, "", message.link].join("\n");
  const html = [
    `<p>Hello ${escapeHtml(user.doc.name)},</p>`,
    ...message.lines.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p><a href="${escapeHtml(message.link)}">${escapeHtml(message.link)}</a></p>`,
  ].join("\n");
  await enqueueEmail({ t, kind: message.kind, to: user.doc.email, subject: message.subject, text, html });
}

/** The ends after which the owner is told how its frames fared. */
const FRAMES_TOLD: readonly ObservationStatus[] = ["completed", "partially_completed"];

const counted = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/**
 * How its frames fared as the message is written: "12 of 15 frames accepted.", and the frames still
 * being analysed then (their grades come later, on its page). Nothing for an observation without frames.
 */
async function framesLine(options: { db: Executor; observationId: string }): Promise<string[]> {
  const { frames, accepted, queued } = await frameCounts(options);
  if (frames === 0) return [];
  const still = queued > 0 ? [`${counted(queued, "frame is", "frames are")} still being analysed; their grades will show on its page.`] : [];
  return [`${accepted} of ${counted(frames, "frame", "frames")} accepted.`, ...still];
}

/**
 * The owner hears of the spec's states (assigned, in progress, suspended, completed, failed,
 * aborted, cancelled) by email and push, as far as both their profile (observation events, each
 * channel) and the observation's own settings (channels, states) ask. Written in the move's
 * transaction and delivered by jobs after it commits.
 */
export async function queueObservationNotifications(options: {
  t: Pick<InTransaction, "tx" | "env" | "listeningOn">;
  observation: { id: string; doc: ObservationDoc };
  to: ObservationStatus;
  reason: string | null;
  /** The owner as the caller read them in this transaction (null: no such user), saving a round trip; read here when left out. */
  owner?: StoredDocument<UserDoc> | null;
}) {
  const { t, observation, to, reason } = options;
  const { doc } = observation;
  if (!(doc.notifications.states as string[]).includes(to)) return;
  const owner = options.owner === undefined ? await usersCollection.get(t.tx, doc.ownerId) : options.owner;
  if (!owner || owner.doc.disabled || !owner.doc.notificationPreferences.observationEvents) return;
  const subject = `${doc.name}: ${label(to)}`;
  const link = appLink({ deps: t, path: `/observations/${observation.id}` });
  const wanted = owner.doc.notificationPreferences;
  const sent = (wanted.email && doc.notifications.email) || (wanted.push && doc.notifications.push);
  const frames = sent && FRAMES_TOLD.includes(to) ? await framesLine({ db: t.tx, observationId: observation.id }) : [];
  const lines = [`Your observation "${doc.name}" is now ${label(to)}.`, ...(reason ? [`Reason: ${reason}`] : []), ...frames];
  // Both channels' statements go out together.
  await Promise.all([
    owner.doc.notificationPreferences.email && doc.notifications.email && emailUser(t, owner, { kind: "observation_status", subject, lines, link }),
    owner.doc.notificationPreferences.push &&
      doc.notifications.push &&
      queuePush({ t, userId: owner.id, title: subject, message: lines.join(" "), url: link, priority: to === "failed" || to === "aborted" ? 1 : 0 }),
  ]);
}

/** A system event (stale observations, a missing star catalog, server start) to the given users, by the channels each wants. */
export async function notifySystemEvent(options: {
  t: Pick<InTransaction, "tx" | "env" | "listeningOn">;
  users: Array<StoredDocument<UserDoc>>;
  event: { kind: string; subject: string; lines: string[]; path: string; priority?: -1 | 0 | 1 };
}) {
  const { t, users, event } = options;
  const link = appLink({ deps: t, path: event.path });
  for (const user of users) {
    const preferences = user.doc.notificationPreferences;
    if (user.doc.disabled || !preferences.systemEvents) continue;
    if (preferences.email) await emailUser(t, user, { kind: event.kind, subject: event.subject, lines: event.lines, link });
    if (preferences.push)
      await queuePush({ t, userId: user.id, title: event.subject, message: event.lines.join(" "), url: link, priority: event.priority ?? 0 });
  }
}

/** A message to each user by the channels their profile wants (email, push); disabled accounts get nothing. */
export async function notifyUsers(options: {
  t: Pick<InTransaction, "tx">;
  users: Array<StoredDocument<UserDoc>>;
  message: { kind: string; subject: string; lines: string[]; link: string; priority: PushMessage["priority"] };
}) {
  const { t, message } = options;
  for (const user of options.users) {
    if (user.doc.disabled) continue;
    if (user.doc.notificationPreferences.email) await emailUser(t, user, message);
    if (user.doc.notificationPreferences.push)
      await queuePush({ t, userId: user.id, title: message.subject, message: message.lines.join(" "), url: message.link, priority: message.priority });
  }
}

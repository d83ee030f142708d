import { usersCollection, type Executor, type ObservationDoc, type StoredDocument, type UserDoc } from "@meridian/db";
import type { ObservationStatus } from "@meridian/rules";
import type { Deps } from "../deps";
import { appLink } from "../email/app-link";
import { enqueueEmail } from "../email/outbox";
import { addJob } from "../jobs/add-job";
import type { PushMessage } from "./push-channels";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
const label = (status: string) => status.replace(/_/g, " ");

/**
 * A push to one user, as a job written in the caller's transaction: it goes out only if the change
 * commits, with retries. A user's pushes share a queue, so they arrive in the order of the changes
 * (an observation's "in progress" never before its "assigned").
 */
export async function queuePush(db: Executor, userId: string, push: PushMessage) {
  await addJob(db, "send_push", { userId, ...push }, { maxAttempts: 5, queueName: `push:${userId}` });
}

/** An email in text and HTML with one link, to a user who wants that kind of message. */
async function emailUser(
  db: Executor,
  deps: Pick<Deps, "env" | "listeningOn">,
  user: StoredDocument<UserDoc>,
  message: { kind: string; subject: string; lines: string[]; link: string },
) {
  const text = [`Hello ${user.doc.name},`, "", ...message.lines, "", message.link].join("\n");
  const html = [
    `<p>Hello ${escapeHtml(user.doc.name)},</p>`,
    ...message.lines.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p><a href="${escapeHtml(message.link)}">${escapeHtml(message.link)}</a></p>`,
  ].join("\n");
  await enqueueEmail(db, { kind: message.kind, to: user.doc.email, subject: message.subject, text, html });
}

/**
 * The owner hears of the spec's states (assigned, in progress, suspended, completed, failed,
 * aborted, cancelled) by email and push, as far as both their profile (observation events, each
 * channel) and the observation's own settings (channels, states) ask. Written in the move's
 * transaction and delivered by jobs after it commits.
 */
export async function queueObservationNotifications(
  db: Executor,
  deps: Pick<Deps, "env" | "listeningOn">,
  observation: { id: string; doc: ObservationDoc },
  to: ObservationStatus,
  reason: string | null,
) {
  const { doc } = observation;
  if (!(doc.notifications.states as string[]).includes(to)) return;
  const owner = await usersCollection.get(db, doc.ownerId);
  if (!owner || owner.doc.disabled || !owner.doc.notificationPreferences.observationEvents) return;
  const subject = `${doc.name}: ${label(to)}`;
  const link = appLink(deps, `/observations/${observation.id}`);
  const lines = [`Your observation "${doc.name}" is now ${label(to)}.`, ...(reason ? [`Reason: ${reason}`] : [])];
  if (owner.doc.notificationPreferences.email && doc.notifications.email)
    await emailUser(db, deps, owner, { kind: "observation_status", subject, lines, link });
  if (owner.doc.notificationPreferences.push && doc.notifications.push)
    await queuePush(db, owner.id, { title: subject, message: lines.join(" "), url: link, priority: to === "failed" || to === "aborted" ? 1 : 0 });
}

/** A system event (stale observations, a missing star catalog, server start) to the given users, by the channels each wants. */
export async function notifySystemEvent(
  db: Executor,
  deps: Pick<Deps, "env" | "listeningOn">,
  users: Array<StoredDocument<UserDoc>>,
  event: { kind: string; subject: string; lines: string[]; path: string; priority?: -1 | 0 | 1 },
) {
  const link = appLink(deps, event.path);
  for (const user of users) {
    const preferences = user.doc.notificationPreferences;
    if (user.doc.disabled || !preferences.systemEvents) continue;
    if (preferences.email) await emailUser(db, deps, user, { kind: event.kind, subject: event.subject, lines: event.lines, link });
    if (preferences.push) await queuePush(db, user.id, { title: event.subject, message: event.lines.join(" "), url: link, priority: event.priority ?? 0 });
  }
}

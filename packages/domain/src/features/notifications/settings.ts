import { pushSubscriptionsCollection, tables, usersCollection } from "@meridian/db";
import { and, desc, eq, inArray, ne } from "drizzle-orm";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { appLink } from "../../platform/email/app-link";
import { enqueueEmail } from "../../platform/email/outbox";
import { AppError } from "../../platform/errors";
import { deliverPush } from "./deliver-push";
import { webPushConfigured } from "./push-channels";
import { NO_PUSHOVER_TOKEN, presentPushover, pushoverConfigured } from "../users";
import { countSendWithinHourlyLimit } from "./send-rate";
import { inTransaction, type InTransaction } from "../../platform/transaction";

export const pushSubscriptionInputSchema = z
  .strictObject({
    endpoint: z.url({ protocol: /^https?$/ }).max(1000),
    keys: z.strictObject({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
    expirationTime: z.number().nullable().optional(),
  })
  .meta({ id: "PushSubscriptionInput" });

export const pushSubscriptionRemoveSchema = z.strictObject({ endpoint: z.url().max(1000) }).meta({ id: "PushSubscriptionRemove" });

export const pushoverInputSchema = z
  .strictObject({
    userKey: z
      .string()
      .regex(/^[A-Za-z0-9]{20,40}$/, "must be the 30-character user key Pushover shows")
      .nullable()
      .describe("null removes Pushover"),
    devices: z
      .array(z.string().regex(/^[A-Za-z0-9_-]{1,25}$/, "must be a device name of letters, digits, - and _"))
      .max(10)
      .default([]),
  })
  .meta({ id: "PushoverInput" });

const channelResult = z.enum(["sent", "queued", "off", "failed", "gone"]);
export const testNotificationResultSchema = z
  .object({
    email: channelResult,
    webPush: z.object({ sent: z.number().int(), failed: z.number().int(), removed: z.number().int() }),
    pushover: channelResult,
    pushoverNotice: z
      .string()
      .optional()
      .describe("Why Pushover sent nothing although the caller has a user key: this server has no Pushover application token (PUSH_APP_TOKEN)"),
  })
  .meta({ id: "TestNotificationResult" });

/** Web push subscriptions one user keeps; a new one beyond it replaces their least recently created one. */
export const PUSH_SUBSCRIPTIONS_PER_USER = 20;

/**
 * Stores a browser's web push subscription for the caller; the same endpoint subscribed again
 * belongs to whoever did it last. Subscribing is asking for push, so the profile's push switch
 * turns on. A user keeps at most PUSH_SUBSCRIPTIONS_PER_USER: a new one beyond it replaces their
 * least recently created one rather than being refused, since a browser subscribes again with a
 * new endpoint (a reinstall, an expired subscription) and leaves the old one behind; refusing
 * would strand the browser in use for the sake of dead ones.
 */
export async function subscribePush(options: {
  deps: Deps;
  actor: UserActor;
  subscription: z.infer<typeof pushSubscriptionInputSchema>;
  userAgent: string | null;
}) {
  const { deps, actor, subscription } = options;
  if (!webPushConfigured(deps)) throw new AppError("CONFLICT", "Web push is not configured on this server (VAPID keys)");
  return inTransaction(deps, async (t) => {
    // The user's row, locked first: one user's subscribes take turns, so the cap holds for those sent at once.
    if (!(await usersCollection.get(t.tx, actor.id, { forUpdate: true }))) throw new AppError("NOT_FOUND", "No such user");
    const existing = await pushSubscriptionsCollection.findOne(t.tx, eq(tables.pushSubscriptions.endpoint, subscription.endpoint));
    const doc = { userId: actor.id, endpoint: subscription.endpoint, keys: subscription.keys, userAgent: options.userAgent?.slice(0, 300) ?? null };
    const stored = existing ? await pushSubscriptionsCollection.update(t.tx, existing.id, () => doc) : await pushSubscriptionsCollection.insert(t.tx, doc);
    await dropSurplusSubscriptions({ t, userId: actor.id, keep: stored!.id });
    await turnPushOn(t, actor.id);
    return { id: stored!.id, endpoint: doc.endpoint, createdAt: stored!.createdAt.toISOString() };
  });
}

/** Deletes the user's least recently created subscriptions beyond the cap, never `keep` (the one just stored). */
async function dropSurplusSubscriptions(options: { t: Pick<InTransaction, "tx">; userId: string; keep: string }) {
  const { pushSubscriptions } = tables;
  const surplus = await options.t.tx
    .select({ id: pushSubscriptions.id })
    .from(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, options.userId), ne(pushSubscriptions.id, options.keep)))
    .orderBy(desc(pushSubscriptions.createdAt), desc(pushSubscriptions.id))
    .offset(PUSH_SUBSCRIPTIONS_PER_USER - 1);
  const ids = surplus.map((row) => row.id);
  if (ids.length > 0) await options.t.tx.delete(pushSubscriptions).where(inArray(pushSubscriptions.id, ids));
}

export async function unsubscribePush(options: { deps: Deps; actor: UserActor; endpoint: string }) {
  const { pushSubscriptions } = tables;
  const removed = await options.deps.db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.endpoint, options.endpoint), eq(pushSubscriptions.userId, options.actor.id)))
    .returning({ id: pushSubscriptions.id });
  if (removed.length === 0) throw new AppError("NOT_FOUND", "No such push subscription");
}

async function turnPushOn(t: Pick<InTransaction, "tx" | "caches" | "cacheChanges">, userId: string) {
  await usersCollection.update(t.tx, userId, (doc) => ({ ...doc, notificationPreferences: { ...doc.notificationPreferences, push: true } }));
  await invalidateCaches({ t, change: { kind: "user", userId } });
}

/** Sets (or with `userKey: null` removes) the caller's Pushover key, sealed at rest; the profile shows only its last characters. Setting one turns push on. */
export async function setPushover(options: { deps: Deps; actor: UserActor; input: z.infer<typeof pushoverInputSchema> }) {
  const { deps, actor, input } = options;
  const pushover = input.userKey
    ? { sealedUserKey: deps.secrets.seal(input.userKey), userKeyHint: `…${input.userKey.slice(-4)}`, devices: input.devices }
    : null;
  await inTransaction(deps, async (t) => {
    await usersCollection.update(t.tx, actor.id, (doc) => ({ ...doc, pushover }));
    if (pushover) await turnPushOn(t, actor.id);
    else await invalidateCaches({ t, change: { kind: "user", userId: actor.id } });
  });
  return presentPushover({ deps, pushover });
}

/**
 * The profile's test button: an email through the outbox (queued), and a push over each push
 * channel now, so the answer can say what each channel did. Channels switched off in the
 * profile answer `off`; a Pushover key on a server without PUSH_APP_TOKEN also says why. At most
 * TEST_NOTIFICATIONS_PER_USER_PER_HOUR tests a user an hour, whatever their channels; beyond it
 * 429 RATE_LIMITED with Retry-After, and nothing is sent.
 */
export async function sendTestNotification(options: { deps: Deps; actor: UserActor }): Promise<z.infer<typeof testNotificationResultSchema>> {
  const { deps, actor } = options;
  const user = await usersCollection.get(deps.db, actor.id);
  if (!user) throw new AppError("NOT_FOUND", "No such user");
  const preferences = user.doc.notificationPreferences;
  const link = appLink({ deps, path: "/profile" });
  // Counted (or refused) whatever the channels: each test sends an email, a push, or both.
  await inTransaction(deps, async (t) => {
    await countSendWithinHourlyLimit({
      t,
      bucket: "notification-test",
      userId: actor.id,
      limit: deps.env.TEST_NOTIFICATIONS_PER_USER_PER_HOUR,
      what: "test notifications",
    });
    if (preferences.email)
      await enqueueEmail({
        t,
        kind: "notification_test",
        to: user.doc.email,
        subject: "Meridian test notification",
        text: `Hello ${user.doc.name},\n\nThis is the test notification you asked for. Email works.\n\n${link}`,
      });
  });
  const email = preferences.email ? ("queued" as const) : ("off" as const);
  const push = preferences.push
    ? await deliverPush({ deps, userId: actor.id, push: { title: "Meridian test notification", message: "Push notifications work.", url: link, priority: 0 } })
    : { webPush: [], pushover: "off" as const };
  const count = (result: string) => push.webPush.filter((entry) => entry === result).length;
  const pushoverNotice = user.doc.pushover && !pushoverConfigured(deps) ? { pushoverNotice: NO_PUSHOVER_TOKEN } : {};
  return { email, webPush: { sent: count("sent"), failed: count("failed"), removed: count("gone") }, pushover: push.pushover, ...pushoverNotice };
}

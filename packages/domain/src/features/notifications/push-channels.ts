import { pushSubscriptionsCollection, type PushSubscriptionDoc, type StoredDocument } from "@meridian/db";
import webpush from "web-push";
import type { Deps } from "../../platform/deps";

export interface PushMessage {
  title: string;
  message: string;
  url: string | null;
  /** Pushover's scale: 1 high (failed, aborted), 0 normal, −1 quiet. */
  priority: -1 | 0 | 1;
}

export type ChannelResult = "sent" | "off" | "failed" | "gone";

export const webPushConfigured = (deps: Pick<Deps, "env">) => Boolean(deps.env.VAPID_PUBLIC_KEY && deps.env.VAPID_PRIVATE_KEY);

/**
 * One web push message to one subscription (VAPID, encrypted payload). The request is built by
 * web-push and sent with fetch, so a receiver may be http or https. A subscription the push
 * service says is gone (404, 410) is removed: it will never work again.
 */
export async function sendWebPush(options: { deps: Deps; subscription: StoredDocument<PushSubscriptionDoc>; push: PushMessage }): Promise<ChannelResult> {
  const { deps, subscription, push } = options;
  const { env } = deps;
  const request = webpush.generateRequestDetails(
    { endpoint: subscription.doc.endpoint, keys: subscription.doc.keys },
    JSON.stringify({ title: push.title, body: push.message, url: push.url }),
    {
      vapidDetails: { subject: env.VAPID_SUBJECT ?? "mailto:admin@meridian.local", publicKey: env.VAPID_PUBLIC_KEY!, privateKey: env.VAPID_PRIVATE_KEY! },
      TTL: 24 * 3600,
      urgency: push.priority > 0 ? "high" : "normal",
    },
  );
  const response = await fetch(request.endpoint, {
    method: request.method,
    headers: request.headers as Record<string, string>,
    body: request.body ? new Uint8Array(request.body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  await response.arrayBuffer().catch(() => undefined);
  if (response.status === 404 || response.status === 410) {
    await pushSubscriptionsCollection.remove(deps.db, subscription.id);
    return "gone";
  }
  return response.ok ? "sent" : "failed";
}

/** A Pushover-style message: a form POST to PUSH_API_URL with the app token and the user's key. */
export async function sendPushover(options: { deps: Deps; recipient: { userKey: string; devices: string[] }; push: PushMessage }): Promise<ChannelResult> {
  const { deps, recipient, push } = options;
  if (!deps.env.PUSH_APP_TOKEN) return "off";
  const form = new URLSearchParams({
    token: deps.env.PUSH_APP_TOKEN,
    user: recipient.userKey,
    title: push.title,
    message: push.message,
    priority: String(push.priority),
  });
  if (push.url) form.set("url", push.url);
  if (recipient.devices.length > 0) form.set("device", recipient.devices.join(","));
  const response = await fetch(deps.env.PUSH_API_URL, { method: "POST", body: form, signal: AbortSignal.timeout(10_000) });
  await response.arrayBuffer().catch(() => undefined);
  return response.ok ? "sent" : "failed";
}

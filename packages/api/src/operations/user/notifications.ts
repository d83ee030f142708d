import { z } from "@hono/zod-openapi";
import {
  pushoverInputSchema,
  pushSubscriptionInputSchema,
  PUSH_SUBSCRIPTIONS_PER_USER,
  pushSubscriptionRemoveSchema,
  sendTestNotification,
  setPushover,
  subscribePush,
  testNotificationResultSchema,
  unsubscribePush,
} from "@meridian/domain/notifications";
import { pushoverViewSchema } from "@meridian/domain/users";
import { defineOperation } from "../define-operation";
import { authedErrors, conflict, errorResponses } from "../responses";

const tags = ["User"];

/** The caller's push channels and the test button (tRPC `user.*`). */
export const notificationOperations = {
  vapidPublicKey: defineOperation({
    operationId: "getVapidPublicKey",
    access: "signed-in",
    tags,
    summary: "The server's VAPID public key, for a browser's push subscription",
    description: "`publicKey: null` when web push is not configured (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY).",
    method: "get",
    path: "/api/v1/user/push-subscriptions/vapid-public-key",
    status: 200,
    output: z.object({ publicKey: z.string().nullable() }),
    outputDescription: "The key",
    responses: authedErrors,
    handle: ({ ctx }) => ({ publicKey: ctx.deps.env.VAPID_PUBLIC_KEY && ctx.deps.env.VAPID_PRIVATE_KEY ? ctx.deps.env.VAPID_PUBLIC_KEY : null }),
  }),
  subscribePush: defineOperation({
    operationId: "subscribeWebPush",
    access: "signed-in",
    tags,
    summary: "Add this browser's web push subscription",
    description:
      "The browser's PushSubscription as JSON. 409 CONFLICT when the server has no VAPID keys. The same endpoint subscribed again " +
      `is updated, and belongs to whoever subscribed it last. A user keeps at most ${PUSH_SUBSCRIPTIONS_PER_USER} subscriptions: a new one ` +
      "beyond that replaces the user's least recently created one (not refused: a browser subscribes again with a new endpoint and " +
      "leaves its old one behind, so refusing would strand the browser in use).",
    method: "post",
    path: "/api/v1/user/push-subscriptions",
    status: 201,
    body: pushSubscriptionInputSchema,
    output: z.object({ id: z.string(), endpoint: z.string(), createdAt: z.string() }),
    outputDescription: "Stored",
    responses: { ...authedErrors, 409: conflict("CONFLICT: web push is not configured") },
    handle: ({ ctx, actor, input }) => subscribePush({ deps: ctx.deps, actor, subscription: input, userAgent: ctx.client.userAgent }),
  }),
  unsubscribePush: defineOperation({
    operationId: "unsubscribeWebPush",
    access: "signed-in",
    tags,
    summary: "Remove one of the caller's web push subscriptions, by its endpoint",
    method: "delete",
    path: "/api/v1/user/push-subscriptions",
    status: 204,
    body: pushSubscriptionRemoveSchema,
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => unsubscribePush({ deps: ctx.deps, actor, endpoint: input.endpoint }),
  }),
  setPushover: defineOperation({
    operationId: "setPushover",
    access: "signed-in",
    tags,
    summary: "Set or remove the caller's Pushover user key and devices",
    description:
      "Stored encrypted; the profile shows it masked (`pushover: {configured, userKeyHint, devices}`). A key can be " +
      "saved on a server without a Pushover application token (`PUSH_APP_TOKEN`), but nothing is sent with it: the " +
      "answer and the profile then say so (`available: false` and a `notice`, added fields).",
    method: "put",
    path: "/api/v1/user/pushover",
    status: 200,
    body: pushoverInputSchema,
    output: pushoverViewSchema,
    outputDescription: "As the profile shows it",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => setPushover({ deps: ctx.deps, actor, input }),
  }),
  testNotification: defineOperation({
    operationId: "sendTestNotification",
    access: "signed-in",
    tags,
    summary: "Send a test notification over each channel the caller has on",
    description:
      "Email is queued through the outbox; push goes out at once, so each channel's result is known: sent, failed, off. " +
      "When the caller has a Pushover key but the server has no Pushover application token (`PUSH_APP_TOKEN`), " +
      "`pushover` is `off` and `pushoverNotice` (an added field) says why. Rate limited: TEST_NOTIFICATIONS_PER_USER_PER_HOUR " +
      "(default 5) tests per user an hour, whatever the channels; beyond it 429 RATE_LIMITED with Retry-After, and nothing is sent.",
    method: "post",
    path: "/api/v1/user/notifications/test",
    status: 200,
    output: testNotificationResultSchema,
    outputDescription: "What each channel did",
    responses: { ...authedErrors, 429: errorResponses[429] },
    handle: ({ ctx, actor }) => sendTestNotification({ deps: ctx.deps, actor }),
  }),
};

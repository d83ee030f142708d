import { z } from "zod";
import { defineJob } from "../../platform/jobs/define-job";
import { deliverPush, shouldRetry } from "./deliver-push";
import { PUSH_LIMITS } from "./notify";

const id = z.string().min(1);

/** One push notification to one user, over every push channel they have (web push subscriptions, Pushover). */
export const sendPushJob = defineJob({
  name: "send_push",
  payload: z.object({
    userId: id,
    title: z.string().max(PUSH_LIMITS.title),
    message: z.string().max(PUSH_LIMITS.message),
    url: z.string().max(PUSH_LIMITS.url).nullable(),
    priority: z.union([z.literal(-1), z.literal(0), z.literal(1)]),
  }),
  maxAttempts: 5,
  // A user's pushes arrive in the order of the changes (an observation's "in progress" never before its "assigned").
  queueName: ({ userId }) => `push:${userId}`,
  async run(payload, { deps, attempt }) {
    const { userId, ...push } = payload;
    const outcome = await deliverPush({ deps, userId, push });
    attempt.logger.debug(`push to ${userId}: web push ${outcome.webPush.join(",") || "none"}, pushover ${outcome.pushover}`);
    // graphile-worker retries with backoff; a push that reached some channel is not sent again.
    if (shouldRetry(outcome)) throw new Error(`push to ${userId} failed on every channel`);
  },
});

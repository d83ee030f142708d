import { deliverPush, shouldRetry } from "@meridian/domain/notifications";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const sendPushTask = defineTask(jobContracts.send_push, async (payload, { deps }, helpers) => {
  const { userId, ...push } = payload;
  const outcome = await deliverPush({ deps, userId, push });
  helpers.logger.debug(`push to ${userId}: web push ${outcome.webPush.join(",") || "none"}, pushover ${outcome.pushover}`);
  // graphile-worker retries with backoff; a push that reached some channel is not sent again.
  if (shouldRetry(outcome)) throw new Error(`push to ${userId} failed on every channel`);
});

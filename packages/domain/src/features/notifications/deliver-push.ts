import { pushSubscriptionsCollection, tables, usersCollection } from "@meridian/db";
import { eq } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { sendPushover, sendWebPush, webPushConfigured, type ChannelResult, type PushMessage } from "./push-channels";

export interface PushOutcome {
  webPush: ChannelResult[];
  pushover: ChannelResult;
}

/** Sends one push message to a user over each push channel they set up; what became of each. */
export async function deliverPush(options: { deps: Deps; userId: string; push: PushMessage }): Promise<PushOutcome> {
  const { deps, userId, push } = options;
  const user = await usersCollection.get(deps.db, userId);
  if (!user) return { webPush: [], pushover: "off" };
  const subscriptions = webPushConfigured(deps)
    ? await pushSubscriptionsCollection.findMany(deps.db, eq(tables.pushSubscriptions.userId, userId), undefined, 50)
    : [];
  const webPush = await Promise.all(subscriptions.map((subscription) => sendWebPush({ deps, subscription, push }).catch((): ChannelResult => "failed")));
  const pushover = user.doc.pushover
    ? await sendPushover({ deps, recipient: { userKey: deps.secrets.open(user.doc.pushover.sealedUserKey), devices: user.doc.pushover.devices }, push }).catch(
        (): ChannelResult => "failed",
      )
    : "off";
  return { webPush, pushover };
}

/** Whether a job should try again: something failed and nothing got through (a retry could send a copy of what did). */
export const shouldRetry = (outcome: PushOutcome) => {
  const results = [...outcome.webPush, outcome.pushover];
  return results.includes("failed") && !results.includes("sent");
};

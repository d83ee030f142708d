import { publishObservatoryEvent } from "../../platform/events/publish";
import type { Announcement } from "./schemas";
import type { InTransaction } from "../../platform/transaction";

/** An observatory's announcement, once it starts, also goes to the observatory's connected plugin as `motd`. */
export async function sendMotdToObservatory(options: {
  t: Pick<InTransaction, "tx">;
  announcement: { scope: string; scopeId: string | null };
  presented: Announcement;
}) {
  const { t, announcement, presented } = options;
  if (announcement.scope !== "observatory" || !announcement.scopeId) return;
  await publishObservatoryEvent({
    t,
    observatoryIds: [announcement.scopeId],
    event: { type: "motd", data: { announcement: presented } },
  });
}

import type { Executor } from "@meridian/db";
import { publishObservatoryEvent } from "../events/publish";
import type { Announcement } from "./schemas";

/** An observatory's announcement, once it starts, also goes to the observatory's connected plugin as `motd`. */
export async function sendMotdToObservatory(db: Executor, announcement: { scope: string; scopeId: string | null }, presented: Announcement) {
  if (announcement.scope !== "observatory" || !announcement.scopeId) return;
  await publishObservatoryEvent(db, { observatoryIds: [announcement.scopeId], event: { type: "motd", data: { announcement: presented } } });
}

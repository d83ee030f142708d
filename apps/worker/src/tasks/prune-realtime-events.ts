import { tables } from "@meridian/db";
import { jobContracts } from "@meridian/domain/platform";
import { lt } from "drizzle-orm";
import { defineTask } from "../define-task";

/** Realtime events are only needed until every server process has read them. */
export const pruneRealtimeEventsTask = defineTask(jobContracts.prune_realtime_events, async (_payload, { deps }) => {
  await deps.db.delete(tables.realtimeEvents).where(lt(tables.realtimeEvents.createdAt, new Date(deps.now().getTime() - 3600_000)));
});

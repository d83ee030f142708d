import { tables } from "@meridian/db";
import { lt } from "drizzle-orm";
import { z } from "zod";
import { defineTask } from "../define-task";

/** Realtime events are only needed until every server process has read them. */
export const pruneRealtimeEventsTask = defineTask("prune_realtime_events", z.unknown(), async (_payload, { deps }) => {
  await deps.db.delete(tables.realtimeEvents).where(lt(tables.realtimeEvents.createdAt, new Date(deps.now().getTime() - 3600_000)));
});

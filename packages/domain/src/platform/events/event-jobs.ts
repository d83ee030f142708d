import { tables } from "@meridian/db";
import { lt } from "drizzle-orm";
import { defineJob, scheduledPayload } from "../jobs/define-job";

/** Realtime events are only needed until every server process has read them. */
export const pruneRealtimeEventsJob = defineJob({
  name: "prune_realtime_events",
  payload: scheduledPayload,
  schedule: "*/10 * * * *",
  run: (_payload, { deps }) => deps.db.delete(tables.realtimeEvents).where(lt(tables.realtimeEvents.createdAt, new Date(deps.now().getTime() - 3600_000))),
});

import { jobContracts, startScheduledScans } from "@meridian/domain";
import { defineTask } from "../define-task";

/** The tick's own time (graphile-worker's `_cron.ts`), so a late or backfilled run starts what was due then. */
const tickOf = (payload: unknown, now: Date) => {
  const ts = (payload as { _cron?: { ts?: string } } | null)?._cron?.ts;
  return ts ? new Date(ts) : now;
};

export const integrityScheduleTask = defineTask(jobContracts.integrity_schedule, async (payload, { deps }) => {
  await startScheduledScans({ deps, at: tickOf(payload, deps.now()) });
});

/** A scheduled job's own time (graphile-worker's `_cron.ts`), so a late or backfilled run starts what was due then. */
export const tickOf = ({ payload, now }: { payload: unknown; now: Date }) => {
  const ts = (payload as { _cron?: { ts?: string } } | null)?._cron?.ts;
  return ts ? new Date(ts) : now;
};

import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { cronFiresAt } from "../../platform/system/cron";
import { readServerSettings } from "../system";
import { startIntegrityScan } from "./scan";

/** What a scheduled scan of each kind looks at: the full one is the spec's monthly scan with storage check. */
const scheduledOptions = {
  quick: {},
  full: { deepScan: true, checkStorage: true, checkHealth: true },
} as const;

/**
 * The `integrity_schedule` job (every minute; graphile-worker runs each tick once across
 * workers): starts the scans whose `scanSchedule` fires in this minute. A scan of that kind still
 * running is left to finish, and this tick's is skipped.
 */
export async function startScheduledScans(options: { deps: Deps; at: Date }) {
  const { deps, at } = options;
  const settings = await readServerSettings(deps.db);
  const started: string[] = [];
  for (const kind of ["quick", "full"] as const) {
    const expression = settings.scanSchedule[kind];
    if (!expression || !cronFiresAt(expression, at)) continue;
    try {
      const scan = await startIntegrityScan({ deps, actor: null, trigger: "scheduled", kind, input: scheduledOptions[kind] });
      started.push(scan.id);
    } catch (error) {
      if (!(error instanceof AppError && error.code === "SCAN_RUNNING")) throw error;
    }
  }
  return started;
}

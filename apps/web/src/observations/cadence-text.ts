import { formatObservatoryTime } from "../lib/format";

/** Every `minutes` as people say it: "every 30 minutes", "every 2 hours", "every day". */
export function intervalText(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? "every day" : `every ${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? "every hour" : `every ${minutes / 60} hours`;
  return minutes === 1 ? "every minute" : `every ${minutes} minutes`;
}

/** A cadence as the review reads it back: "every hour, until 3 Jan 2031, 02:00, at most 5 runs". */
export function cadenceText(
  monitoring: { intervalMinutes: number; until?: string | null; maxRuns?: number | null },
  observatoryZone: string | undefined,
): string {
  return [
    intervalText(monitoring.intervalMinutes),
    monitoring.until ? `until ${formatObservatoryTime(monitoring.until, observatoryZone)}` : null,
    monitoring.maxRuns != null ? `at most ${monitoring.maxRuns} ${monitoring.maxRuns === 1 ? "run" : "runs"}` : null,
  ]
    .filter(Boolean)
    .join(", ");
}

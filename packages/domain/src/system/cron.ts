import { CronExpressionParser } from "cron-parser";

export function isCronExpression(expression: string): boolean {
  try {
    CronExpressionParser.parse(expression, { tz: "UTC" });
    return true;
  } catch {
    return false;
  }
}

/** Whether a five-field cron expression (UTC) fires in the minute that holds `at`. */
export function cronFiresAt(expression: string, at: Date): boolean {
  const minute = Math.floor(at.getTime() / 60_000) * 60_000;
  const previous = CronExpressionParser.parse(expression, { currentDate: new Date(minute + 30_000), tz: "UTC" }).prev();
  return previous.getTime() === minute;
}

/** The next time a cron expression (UTC) fires after `after`. */
export const nextCronTime = (expression: string, after: Date): Date =>
  CronExpressionParser.parse(expression, { currentDate: after, tz: "UTC" }).next().toDate();

/** The last time a cron expression (UTC) fired at or before `at`. */
export const previousCronTime = (expression: string, at: Date): Date =>
  CronExpressionParser.parse(expression, { currentDate: new Date(at.getTime() + 1000), tz: "UTC" })
    .prev()
    .toDate();

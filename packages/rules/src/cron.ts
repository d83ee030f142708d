import { CronExpressionParser } from "cron-parser";
import cronstrue from "cronstrue";

/**
 * Five-field cron expressions in UTC, as the server settings hold them: the server's schedulers
 * and the settings page read them with the same parser, so the page's "next runs" are the runs.
 */
const FIVE_FIELDS = /^(\S+\s+){4}\S+$/;

/**
 * Jenkins' `H` (a value drawn at random at every parse), which the parser also takes: the schedulers
 * read the expression again each minute, so such a schedule would fire at random minutes, or not at all.
 * Weekday names (`THU`) hold an H inside a word, not as a field's value.
 */
const HASHED_VALUE = /(^|[\s,])H(?=$|[\s,/(])/i;

export function isCronExpression(expression: string): boolean {
  if (!FIVE_FIELDS.test(expression.trim()) || HASHED_VALUE.test(expression)) return false;
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

/** The next `count` times a cron expression (UTC) fires after `after`. */
export function nextCronTimes(expression: string, after: Date, count: number): Date[] {
  const interval = CronExpressionParser.parse(expression, { currentDate: after, tz: "UTC" });
  return Array.from({ length: count }, () => interval.next().toDate());
}

/** The last time a cron expression (UTC) fired at or before `at`. */
export const previousCronTime = (expression: string, at: Date): Date =>
  CronExpressionParser.parse(expression, { currentDate: new Date(at.getTime() + 1000), tz: "UTC" })
    .prev()
    .toDate();

/** A valid expression in words, with 24-hour times ("At 03:00, only on Sunday"); the times are UTC. */
export const describeCron = (expression: string): string => cronstrue.toString(expression.trim(), { use24HourTimeFormat: true });

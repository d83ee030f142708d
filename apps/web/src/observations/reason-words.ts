import type { Twilight } from "@meridian/rules";
import type { RouterOutputs } from "../organizations/types";

/** Why an observation waits, as the queue, the night plan and the forecast give it. */
export type WaitReason = RouterOutputs["observatories"]["queue"]["items"][number]["reasons"][number];

export interface ReasonContext {
  /** Writes an `until` moment ("01:12", "Sat 28 Nov 01:12"). */
  when(iso: string): string;
  /** The observation's darkness, when known. */
  twilight?: Twilight;
  /**
   * Its sky limits: the minimum altitude, and the airmass and Moon distance it asks for (null: none)
   * when known (undefined: not known). With only a minimum altitude the reason reads "below 30°".
   */
  limits?: { minAltitude: number; maxAirmass?: number | null; moonDistance?: number | null };
  /** Its target stays below the minimum altitude all through the darkness in question: "below 30°" is the reason, whatever else it asks. */
  belowMinimum?: boolean;
  /** In a night plan, OBSERVATORY_BUSY means the night went to work ahead of it; in the queue, that something runs now. */
  plan?: boolean;
}

function skyLimits(limits: NonNullable<ReasonContext["limits"]>): string {
  const parts = [`above ${limits.minAltitude}°`];
  if (limits.maxAirmass != null) parts.push(`airmass under ${limits.maxAirmass}`);
  if (limits.moonDistance != null) parts.push(`${limits.moonDistance}° from the Moon`);
  return parts.join(", ");
}

/** Degrees as a whole number, with a true minus sign: "21°", "−13°". */
const wholeDegrees = (degrees: number) => `${Math.round(degrees) < 0 ? "−" : ""}${Math.abs(Math.round(degrees))}°`;

/** A target that never meets its limits from the site, whatever the night: "Never rises above 30° from this site (highest 21°)". */
function neverReason(highest: number, context: ReasonContext): string {
  const limits = context.limits;
  const highestText = `(highest ${wholeDegrees(highest)})`;
  if (limits && limits.maxAirmass != null && highest >= limits.minAltitude)
    return `Never gets below airmass ${limits.maxAirmass} from this site ${highestText}`;
  return `Never rises above ${limits ? `${limits.minAltitude}°` : "its minimum altitude"} from this site ${highestText}`;
}

/** A run that could start now but not finish: what it would outlast and when, then when it next fits whole. */
function unfinishedReason(reason: WaitReason, context: ReasonContext): string {
  const limits = context.limits;
  const crossing: Record<NonNullable<WaitReason["limit"]>, string> = {
    darkness: `darkness${context.twilight ? ` (${context.twilight})` : ""} ends`,
    altitude: `its target sinks below ${limits ? `${limits.minAltitude}°` : "its minimum altitude"}`,
    airmass: `its target passes ${limits?.maxAirmass != null ? `airmass ${limits.maxAirmass}` : "its maximum airmass"}`,
    moon: `its target comes within ${limits?.moonDistance != null ? `${limits.moonDistance}°` : "its distance"} of the Moon`,
    window: "its time window ends",
  };
  const what = reason.limit ? crossing[reason.limit] : "a limit of its ends";
  const next = reason.until ? `; it next fits whole at ${context.when(reason.until)}` : "; no start in the coming week lets it finish";
  return `Would not finish before ${what}${reason.at ? ` at ${context.when(reason.at)}` : ""}${next}`;
}

function targetReason(reason: WaitReason, context: ReasonContext): string {
  if (reason.highestAltitude != null) return neverReason(reason.highestAltitude, context);
  const limits = context.limits;
  const known = limits !== undefined && limits.maxAirmass !== undefined && limits.moonDistance !== undefined;
  const altitudeOnly = limits !== undefined && (context.belowMinimum || (known && limits.maxAirmass === null && limits.moonDistance === null));
  const what = altitudeOnly
    ? `Target below ${limits.minAltitude}°`
    : known
      ? `Target outside its limits (${skyLimits(limits)})`
      : "Target outside its altitude, airmass or Moon limits";
  return reason.until ? `${what} until ${context.when(reason.until)}` : `${what}; no chance to observe it in the coming week`;
}

/**
 * A reason as a sentence: "Target below 30° until 01:12", "Waiting for darkness (astronomical) until 19:02",
 * "Would not finish before darkness (astronomical) ends at 04:58; it next fits whole at 19:40".
 * It goes beside the reason's badge, so an observatory-wide hold says what ends it, not its name again.
 */
export function reasonInWords(reason: WaitReason, context: ReasonContext): string {
  const until = reason.until ? ` until ${context.when(reason.until)}` : "";
  switch (reason.code) {
    case "BEFORE_WINDOW":
      return reason.until ? `Its time window opens at ${context.when(reason.until)}` : "Before its time window";
    case "AFTER_WINDOW":
      return "Its time window has passed";
    case "NOT_DARK":
      if (reason.windowInDaylight) return `Its time window lies wholly in daylight${context.twilight ? ` (no ${context.twilight} darkness in it)` : ""}`;
      return `Waiting for darkness${context.twilight ? ` (${context.twilight})` : ""}${until}`;
    case "TARGET_NOT_VISIBLE":
      return targetReason(reason, context);
    case "WOULD_NOT_FINISH":
      return unfinishedReason(reason, context);
    case "ALLOCATION_EXHAUSTED":
      return reason.until ? `Its project's observing time here starts at ${context.when(reason.until)}` : "Its project has too little observing time left here";
    case "FILTER_MISSING":
      return "It asks for a filter this observatory's plugin does not report";
    case "OBSERVATORY_BUSY":
      return context.plan ? "The night is taken by work ahead of it in the queue" : `The observatory is busy with another observation${until}`;
    case "OFFLINE":
      return "Waiting for the observatory's plugin to connect";
    case "DISPATCH_OFF":
      return "Waiting for dispatch to be switched on at the observatory";
    case "PLUGIN_OUTDATED":
      return "Waiting for the observatory's plugin to be updated";
    case "UNSAFE":
      return "Waiting for the observatory to report safe conditions, with no weather hold";
    case "PLANNED_LATER":
      return reason.until ? `The network plan starts it here at ${context.when(reason.until)}` : "The network plan starts it here later";
    case "PLANNED_ELSEWHERE":
      return `The network plan runs it at another observatory${reason.until ? ` from ${context.when(reason.until)}` : ""}`;
  }
}

/** A sentence continued after a colon. */
export const lowerFirst = (sentence: string) => sentence.charAt(0).toLowerCase() + sentence.slice(1);

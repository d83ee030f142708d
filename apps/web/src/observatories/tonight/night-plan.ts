import type { RouterOutputs } from "../../organizations/types";
import { zoneAbbreviation, zoneClock } from "../../lib/zone-time";

export type NightPlan = RouterOutputs["observatories"]["plan"];
export type PlanNight = NonNullable<NightPlan["night"]>;
export type PlanSlot = NightPlan["slots"][number];
export type AltitudeCurve = NightPlan["altitude"][number];

/** Room left of the timeline and the altitude chart for their row and axis labels; both share it, so their hours line up. */
export const GUTTER = 40;
export const RIGHT_PAD = 8;

/** Where a moment of the night falls across `width` pixels, the gutter kept free. */
export function nightScale(night: PlanNight, width: number) {
  const from = Date.parse(night.sunset);
  const to = Date.parse(night.sunrise);
  const span = width - GUTTER - RIGHT_PAD;
  return {
    from,
    to,
    x: (at: string | number) => GUTTER + ((Math.min(Math.max(typeof at === "string" ? Date.parse(at) : at, from), to) - from) / (to - from)) * span,
  };
}

const QUARTER_HOUR = 15 * 60_000;

/** The whole hours of the zone's clock between sunset and sunrise, every one or fewer when they would crowd `width`. */
export function hourTicks(night: PlanNight, zone: string, width: number): Array<{ at: number; label: string }> {
  const { from, to } = nightScale(night, width);
  const pixelsPerHour = (width - GUTTER - RIGHT_PAD) / ((to - from) / 3_600_000);
  const every = pixelsPerHour >= 44 ? 1 : pixelsPerHour >= 22 ? 2 : 3;
  const ticks: Array<{ at: number; label: string }> = [];
  // Quarter hours, since a zone may be offset from UTC by a half or a quarter.
  for (let at = Math.ceil(from / QUARTER_HOUR) * QUARTER_HOUR; at <= to; at += QUARTER_HOUR) {
    const label = zoneClock(new Date(at), zone);
    if (label.endsWith(":00") && Number(label.slice(0, 2)) % every === 0) ticks.push({ at, label });
  }
  return ticks;
}

/** The twilight bands between sunset and sunrise, as far as the sun goes down that night. */
export function skyBands(night: PlanNight): Array<{ from: string; to: string; kind: SkyKind }> {
  const edges: Array<[string | null, SkyKind]> = [
    [night.sunset, "civil"],
    [night.civilDusk, "nautical"],
    [night.nauticalDusk, "astronomical"],
    [night.darkStart, "dark"],
    [night.darkEnd, "astronomical"],
    [night.nauticalDawn, "nautical"],
    [night.civilDawn, "civil"],
  ];
  const known = edges.filter((edge): edge is [string, SkyKind] => edge[0] !== null);
  return known.map(([from, kind], index) => ({ from, to: known[index + 1]?.[0] ?? night.sunrise, kind }));
}

export type SkyKind = "civil" | "nautical" | "astronomical" | "dark";

export const skyColors: Record<SkyKind, string> = {
  civil: "#c7d2fe",
  nautical: "#818cf8",
  astronomical: "#4338ca",
  dark: "#1e1b4b",
};

export const skyLabels: Record<SkyKind, string> = {
  civil: "Civil twilight",
  nautical: "Nautical twilight",
  astronomical: "Astronomical twilight",
  dark: "Dark",
};

/** What a slot is doing, in words: planned work, or what runs now. */
export const slotState = (slot: PlanSlot) => (slot.status === "pending" ? "planned" : slot.status === "assigned" ? "assigned" : "running");

/** A slot read aloud, and shown on hover: "M 31: planned 23:40 to 00:30 UTC, priority 5, by Ann". */
export function slotLabel(slot: PlanSlot, zone: string): string {
  const owner = slot.ownerName ? `, by ${slot.ownerName}` : "";
  const times = `${zoneClock(slot.start, zone)} to ${zoneClock(slot.end, zone)} ${zoneAbbreviation(zone, slot.start)}`;
  return `${slot.name}: ${slotState(slot)} ${times}, priority ${slot.priority}${owner}`;
}

/** Colours told apart from each other for the altitude curves, in order. */
export const curveColors = ["#4f46e5", "#0891b2", "#c026d3", "#ea580c", "#16a34a", "#be123c", "#854d0e", "#475569"];

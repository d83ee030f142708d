import type { RouterOutputs } from "../organizations/types";
import { browserZone, displayZone, zoneName } from "../lib/time-display";

export type NetworkPlan = RouterOutputs["network"]["plan"];
export type NetworkSlot = NetworkPlan["slots"][number];

/** How wide an hour of the horizon is drawn: wide enough for a block's label, so the timeline scrolls on a phone. */
const PX_PER_HOUR = 48;
const HOUR_MS = 3_600_000;

/** The plan's horizon as a scale: x in pixels from its start, and the whole width. */
export function horizonScale(plan: NetworkPlan) {
  const start = Date.parse(plan.computedAt ?? "");
  const end = Date.parse(plan.horizonEnd ?? "");
  const x = (at: string | number) => Math.max(0, Math.min(end - start, (typeof at === "string" ? Date.parse(at) : at) - start)) * (PX_PER_HOUR / HOUR_MS);
  return { start, end, x, width: Math.ceil(((end - start) / HOUR_MS) * PX_PER_HOUR) };
}

/** Whole hours within the horizon, for the axis. */
export function hourTicks(plan: NetworkPlan): number[] {
  const { start, end } = horizonScale(plan);
  const ticks: number[] = [];
  for (let at = Math.ceil(start / HOUR_MS) * HOUR_MS; at <= end; at += HOUR_MS) ticks.push(at);
  return ticks;
}

/**
 * The network spans zones, so its times are the viewer's: UTC when the profile chose it, else the browser's zone,
 * named in words: "UTC" or "your time zone, Europe/Madrid (UTC+1)".
 */
export function viewerZoneWords(at: Date = new Date()): string {
  if (displayZone(undefined) === "UTC") return "UTC";
  return `your time zone, ${browserZone()} (${zoneName(undefined, at)})`;
}

const PALETTE = ["#2563eb", "#16a34a", "#d97706", "#9333ea", "#db2777", "#0891b2", "#65a30d", "#dc2626", "#4f46e5", "#0d9488"];

/** A colour that stays the same for the same key (a project's id) on every visit and in every row. */
export function stableColour(key: string): string {
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length]!;
}

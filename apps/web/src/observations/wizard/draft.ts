import { notifiedStatuses, parseDeclination, parseRightAscension, type observationTypes, type twilightKinds } from "@meridian/rules";
import { observationDraftProblems } from "@meridian/rules/observations";
import { wallClockToIso } from "../../lib/zone-time";
import type { RouterInputs } from "../../organizations/types";

export type ObservationType = (typeof observationTypes)[number];
export type ObservationInput = RouterInputs["observations"]["create"];

export interface ExposureDraft {
  filter: string;
  exposureSeconds: string;
  count: string;
  binning: string;
}

/** The catalog object a target's position was taken from, while its name is still the one picked. */
export interface CatalogSource {
  name: string;
  designation: string;
  kind: string;
}

export interface TargetDraft {
  name: string;
  ra: string;
  dec: string;
  exposures: ExposureDraft[];
  source: CatalogSource | null;
}

/** Everything the wizard holds, as typed: text until it is sent, so a half-typed value is never lost. */
export interface ObservationDraft {
  name: string;
  projectId: string;
  /** Where it may run: the one observatory `observatoryId`, or any of `candidateObservatoryIds` (the network plan chooses). */
  where: "one" | "any";
  observatoryId: string;
  /** With `where: "any"`: the observatories it may run at, in the order they are offered (the first one's zone and settings are its own). */
  candidateObservatoryIds: string[];
  /** One of the project's organization's storage destinations, or "" for none. */
  storageDestinationId: string;
  targets: TargetDraft[];
  type: ObservationType;
  priority: string;
  fixedTimeStart: string;
  fixedTimeEnd: string;
  twilight: (typeof twilightKinds)[number];
  minAltitude: string;
  maxAirmass: string;
  moonDistance: string;
  bypassDarkness: boolean;
  /** A monitoring observation's cadence: all three empty for none (it repeats as soon as it is eligible). */
  intervalMinutes: string;
  monitoringUntil: string;
  maxRuns: string;
  email: boolean;
  push: boolean;
  states: Array<(typeof notifiedStatuses)[number]>;
}

/** How many observatories an observation may name as its candidates (the API's bounds, contract "Network scheduling"). */
export const CANDIDATES = { min: 2, max: 20 } as const;

/**
 * The observatory whose clocks and settings the draft is read by: the one chosen, or the first candidate (as the API
 * estimates one with candidates, and as its page shows its times); "" while there is none.
 */
export const homeObservatoryOf = (draft: Pick<ObservationDraft, "where" | "observatoryId" | "candidateObservatoryIds">): string =>
  draft.where === "any" ? (draft.candidateObservatoryIds[0] ?? "") : draft.observatoryId;

export const newExposure = (): ExposureDraft => ({ filter: "L", exposureSeconds: "60", count: "1", binning: "1" });
export const newTarget = (): TargetDraft => ({ name: "", ra: "", dec: "", exposures: [newExposure()], source: null });
export const newDraft = (): ObservationDraft => ({
  name: "",
  projectId: "",
  where: "one",
  observatoryId: "",
  candidateObservatoryIds: [],
  storageDestinationId: "",
  targets: [newTarget()],
  type: "flexible",
  priority: "5",
  fixedTimeStart: "",
  fixedTimeEnd: "",
  twilight: "astronomical",
  minAltitude: "30",
  maxAirmass: "",
  moonDistance: "",
  bypassDarkness: false,
  intervalMinutes: "60",
  monitoringUntil: "",
  maxRuns: "",
  email: true,
  push: true,
  states: [...notifiedStatuses],
});

/**
 * Which window fields each type asks for: a fixed-time observation its start (and an end if it has
 * one), a time-based one a start, an end or both (the rules refuse neither); the others none, since
 * dispatch alone decides when they run.
 */
export const windowOf: Record<ObservationType, { start: "required" | "optional"; end: "optional" } | null> = {
  flexible: null,
  fixed_time: { start: "required", end: "optional" },
  time_based: { start: "optional", end: "optional" },
  monitoring: null,
  rise_to_set: null,
};

/** A number as typed: nothing is absent (the API says "is required"), text that is not a number stays text (it says "must be a number"). */
function numberFrom(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  return Number.isFinite(Number(trimmed)) ? Number(trimmed) : (trimmed as unknown as number);
}

const optionalNumber = (text: string) => (text.trim() === "" ? null : numberFrom(text));

/**
 * A `datetime-local` value, read on the clocks of `zone` (the observatory's, see `typingZone`), as the API's ISO 8601 UTC;
 * text that is no date and time goes as typed, for the API's rules to name.
 */
const isoIn = (value: string, zone: string) => (value.trim() === "" ? null : (wallClockToIso(value, zone) ?? value));

const raOf = (target: TargetDraft, index: number) => parseRightAscension(target.ra, { path: ["targets", index, "ra"] });
const decOf = (target: TargetDraft, index: number) => parseDeclination(target.dec, { path: ["targets", index, "dec"] });

/** The cadence as the API takes it: null for another type, or when nothing of it was given. */
function monitoringOf(draft: ObservationDraft, zone: string): ObservationInput["monitoring"] {
  if (draft.type !== "monitoring" || [draft.intervalMinutes, draft.monitoringUntil, draft.maxRuns].every((text) => text.trim() === "")) return null;
  return {
    intervalMinutes: numberFrom(draft.intervalMinutes) as number,
    until: isoIn(draft.monitoringUntil, zone),
    maxRuns: optionalNumber(draft.maxRuns) as number | null,
  };
}

/**
 * The draft as the API takes it, its times read on the clocks of `zone`. Fields a type does not use are sent empty, so a
 * window typed for another type never goes with it.
 */
export function toInput(draft: ObservationDraft, zone: string): ObservationInput {
  const window = windowOf[draft.type];
  return {
    name: draft.name,
    projectId: draft.projectId,
    // One or the other, never both (the API refuses both).
    ...(draft.where === "any" ? { candidateObservatoryIds: draft.candidateObservatoryIds } : { observatoryId: draft.observatoryId }),
    storageDestinationId: draft.storageDestinationId || null,
    type: draft.type,
    priority: numberFrom(draft.priority) as number,
    targets: draft.targets.map((target, index) => {
      const ra = raOf(target, index);
      const dec = decOf(target, index);
      return {
        name: target.name,
        ra: (ra.ok ? ra.degrees : undefined) as number,
        dec: (dec.ok ? dec.degrees : undefined) as number,
        epoch: "J2000",
        exposures: target.exposures.map((exposure) => ({
          filter: exposure.filter,
          exposureSeconds: numberFrom(exposure.exposureSeconds) as number,
          count: numberFrom(exposure.count) as number,
          binning: numberFrom(exposure.binning) as number,
        })),
      };
    }),
    constraints: {
      twilight: draft.twilight,
      minAltitude: numberFrom(draft.minAltitude) as number,
      maxAirmass: optionalNumber(draft.maxAirmass) as number | null,
      moonDistance: optionalNumber(draft.moonDistance) as number | null,
    },
    fixedTimeStart: window ? isoIn(draft.fixedTimeStart, zone) : null,
    fixedTimeEnd: window ? isoIn(draft.fixedTimeEnd, zone) : null,
    bypassDarkness: draft.bypassDarkness,
    monitoring: monitoringOf(draft, zone),
    notifications: { email: draft.email, push: draft.push, states: draft.states },
  };
}

/**
 * Every field's problem (its times read on the clocks of `zone`), keyed as the API's `errors[]` names fields (`targets.0.ra`), in the API's
 * words: the shared field rules, and RA and Dec as `@meridian/rules` reads them as typed.
 */
export function draftProblems(draft: ObservationDraft, zone: string): Record<string, string> {
  const problems: Record<string, string> = observationDraftProblems(toInput(draft, zone));
  if (!draft.projectId) problems.projectId = "Choose a project.";
  if (draft.where === "one" && !draft.observatoryId) problems.observatoryId = "Choose an observatory.";
  if (draft.where === "any") {
    const chosen = draft.candidateObservatoryIds.length;
    if (chosen < CANDIDATES.min) problems.candidateObservatoryIds = `Tick at least ${CANDIDATES.min} (${chosen} ticked), or choose just one.`;
    if (chosen > CANDIDATES.max) problems.candidateObservatoryIds = `Tick at most ${CANDIDATES.max}: ${chosen} are ticked.`;
  }
  draft.targets.forEach((target, index) => {
    for (const [field, parsed] of [
      ["ra", raOf(target, index)],
      ["dec", decOf(target, index)],
    ] as const)
      if (!parsed.ok) problems[`targets.${index}.${field}`] = parsed.message;
  });
  return problems;
}

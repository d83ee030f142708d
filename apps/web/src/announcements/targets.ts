import type { TargetKind, TargetOption, Targets } from "./types";

/** One picker's state: everyone of the kind, or the options chosen (kept whole, to show their names). */
export interface TargetChoice {
  all: boolean;
  chosen: TargetOption[];
}
export type TargetChoices = Record<TargetKind, TargetChoice>;

export const noTargets = (): TargetChoices => ({
  users: { all: false, chosen: [] },
  observatories: { all: false, chosen: [] },
  organizations: { all: false, chosen: [] },
  projects: { all: false, chosen: [] },
});

/** The `targets` the server takes: only the kinds that name someone. */
export function targetsInput(choices: TargetChoices): Targets {
  const targets: Targets = {};
  for (const [kind, choice] of Object.entries(choices) as Array<[TargetKind, TargetChoice]>) {
    if (choice.all) targets[kind] = { all: true, ids: [] };
    else if (choice.chosen.length > 0) targets[kind] = { all: false, ids: choice.chosen.map((option) => option.id) };
  }
  return targets;
}

export const hasTargets = (targets: Targets) => Object.keys(targets).length > 0;

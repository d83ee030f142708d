import { useQueries, useQuery } from "@tanstack/react-query";
import type { Observation } from "../../observations/labels";
import { trpc } from "../../trpc";

/** The target an altitude curve follows (the plan samples an observation's first target only), and how many it has. */
export interface FirstTarget {
  name: string;
  count: number;
}

const firstOf = (observation: Pick<Observation, "targets">): FirstTarget | null => {
  const [first] = observation.targets;
  return first ? { name: first.name, count: observation.targets.length } : null;
};

/**
 * The first target of each observation in `observationIds`, for the altitude chart to say whose
 * curve it draws. The plan names observations only: their targets come from the queue (every
 * pending one, which the queue tab reads too), and the few the queue leaves out (assigned or
 * running now) one by one. Until an answer comes, or when the reader may not open the observation,
 * its entry is missing and the chart says "its first target".
 */
export function useFirstTargets(observatoryId: string, observationIds: string[], refetchInterval: number): Map<string, FirstTarget> {
  const queue = useQuery(trpc.observatories.queue.queryOptions({ id: observatoryId }, { refetchInterval }));
  const found = new Map<string, FirstTarget>();
  for (const item of queue.data?.items ?? []) {
    const target = firstOf(item.observation);
    if (target) found.set(item.observation.id, target);
  }
  const missing = queue.data ? observationIds.filter((id) => !found.has(id)) : [];
  const others = useQueries({ queries: missing.map((id) => trpc.observations.get.queryOptions({ id }, { retry: false })) });
  for (const other of others) {
    const target = other.data ? firstOf(other.data) : null;
    if (other.data && target) found.set(other.data.id, target);
  }
  return found;
}

/** "altitude of Vega", "altitude of M 31, the first of 3 targets", or without its name while it is not known. */
export const curveSubject = (target: FirstTarget | undefined) =>
  target ? `altitude of ${target.name}${target.count > 1 ? `, the first of ${target.count} targets` : ""}` : "altitude of its first target";

import { useQuery } from "@tanstack/react-query";
import { isFinalStatus } from "@meridian/rules";
import { useMe } from "../auth/useMe";
import type { Observatory } from "../observatories/permissions";
import { trpc } from "../trpc";
import type { Observation } from "./labels";

/**
 * Which controls the caller may use on an observation, by the API's rules: its owner or an
 * operator of its observatory edits (while it waits), pauses, resumes, sets the priority and
 * cancels; whoever may create it again (can_observe there, and access to its active project)
 * clones. `observatory` is what the caller may see of it (nothing when they cannot view it, or
 * it was removed).
 */
export function useObservationControls(observation: Observation, observatory: Observatory | undefined) {
  const me = useMe();
  const project = useQuery(trpc.projects.get.queryOptions({ id: observation.projectId }, { retry: false }));
  // Operators act at the observatory it runs at: one with candidates that waits at none is its owner's alone.
  const operates = observation.observatoryId !== null && Boolean(observatory?.myPermissions?.can_operate);
  const mayChange = observation.ownerId === me.data?.id || operates;
  const waiting = observation.status === "pending" || observation.status === "paused";
  return {
    edit: mayChange && waiting,
    pause: mayChange && observation.status === "pending",
    resume: mayChange && observation.status === "paused",
    priority: mayChange && waiting,
    cancel: mayChange && !isFinalStatus(observation.status),
    clone: Boolean(observatory?.myPermissions?.can_observe) && project.data?.status === "active",
  };
}

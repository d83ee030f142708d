import { useMemo } from "react";
import { skipToken, useQuery } from "@tanstack/react-query";
import { useDebouncedValue } from "../lib/useDebouncedValue";
import { trpc } from "../trpc";
import { hasTargets } from "./targets";
import type { ScopeRef, Targets } from "./types";

const SETTLE_MS = 300;

export interface RecipientPreview {
  /** How many users it would reach, once known for the current choice. */
  count: number | null;
  counting: boolean;
  /** The system form has no target yet. */
  noTargets: boolean;
  error: unknown;
}

/**
 * The number of recipients before sending: for a system announcement, counted by the server for
 * the targets chosen (once the choice has settled for a moment); for a scoped one, its members.
 */
export function useRecipientPreview(scope: ScopeRef, targets: Targets): RecipientPreview {
  const system = scope.scope === "system";
  const chosen = JSON.stringify(targets);
  const settledJson = useDebouncedValue(chosen, SETTLE_MS);
  const settled = useMemo(() => JSON.parse(settledJson) as Targets, [settledJson]);
  const systemCount = useQuery(
    trpc.announcements.previewSystem.queryOptions(system && hasTargets(settled) ? { targets: settled } : skipToken, { staleTime: 0, retry: false }),
  );
  const scopedCount = useQuery(
    trpc.announcements.previewScoped.queryOptions(scope.scope !== "system" ? { scope: scope.scope, scopeId: scope.scopeId } : skipToken, { staleTime: 0 }),
  );
  if (!system) return { count: scopedCount.data?.recipientCount ?? null, counting: scopedCount.isFetching, noTargets: false, error: scopedCount.error };
  if (!hasTargets(targets)) return { count: null, counting: false, noTargets: true, error: null };
  const current = settledJson === chosen && !systemCount.isFetching;
  return {
    count: current ? (systemCount.data?.recipientCount ?? null) : null,
    counting: !current,
    noTargets: false,
    error: current ? systemCount.error : null,
  };
}

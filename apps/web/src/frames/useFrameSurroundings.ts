import { useQueries } from "@tanstack/react-query";
import { useObservatoryNames } from "../observations/useObservatoryNames";
import { trpc } from "../trpc";
import type { FrameObservatory } from "./FrameResults";
import type { FoundFrame } from "./types";

/**
 * What a found frame does not carry itself: its observatory (name and time zone, through its
 * observation) and its preview (a file of the same observation whose `previewOfId` is the frame).
 * One read of each observation shown and of its files, batched into one request by the tRPC link
 * and kept in the cache, so "Load more" asks only for observations not seen yet.
 */
export function useFrameSurroundings(items: readonly FoundFrame[], observatories: ReadonlyArray<{ id: string; name: string; timeZone: string }> | undefined) {
  const observationIds = [...new Set(items.map((file) => file.observationId))];
  const observations = useQueries({ queries: observationIds.map((id) => trpc.observations.get.queryOptions({ id })) });
  const files = useQueries({ queries: observationIds.map((id) => trpc.observations.files.queryOptions({ id })) });

  const observatoryOfObservation = new Map<string, string>();
  for (const query of observations) if (query.data?.observatoryId) observatoryOfObservation.set(query.data.id, query.data.observatoryId);
  const previews = new Map<string, string>();
  for (const query of files) for (const file of query.data?.items ?? []) if (file.previewOfId && !file.missing) previews.set(file.previewOfId, file.id);

  const observatoryIdOf = (file: FoundFrame) => file.observatoryId ?? observatoryOfObservation.get(file.observationId);
  const observatoryName = useObservatoryNames(
    observatories,
    items.flatMap((file) => observatoryIdOf(file) ?? []),
  );
  return {
    withPreviews: items.map((file) => (file.previewId !== undefined ? file : { ...file, previewId: previews.get(file.id) ?? null })),
    observatoryOf: (file: FoundFrame): FrameObservatory => {
      const id = observatoryIdOf(file);
      return { name: id ? observatoryName(id) : undefined, timeZone: observatories?.find((observatory) => observatory.id === id)?.timeZone };
    },
  };
}

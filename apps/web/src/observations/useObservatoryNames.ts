import { useQuery } from "@tanstack/react-query";
import { trpc } from "../trpc";

/**
 * An observatory's name for showing its observations: from `listed` (what the page already has)
 * when it is there, otherwise from `observatories.names`, which still knows an observatory that
 * was removed (named so). Undefined while unknown, or for one the caller cannot view.
 */
export function useObservatoryNames(listed: ReadonlyArray<{ id: string; name: string }> | undefined, ids: readonly string[]) {
  const known = new Map((listed ?? []).map((observatory) => [observatory.id, observatory.name]));
  const missing = [...new Set(ids.filter((id) => !known.has(id)))].sort().slice(0, 200);
  const names = useQuery(trpc.observatories.names.queryOptions({ ids: missing }, { enabled: listed !== undefined && missing.length > 0 }));
  return (id: string): string | undefined => {
    const name = known.get(id);
    if (name !== undefined) return name;
    const found = names.data?.items.find((item) => item.id === id);
    return found ? `${found.name}${found.removed ? " (removed)" : ""}` : undefined;
  };
}

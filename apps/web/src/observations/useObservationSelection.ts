import { useState } from "react";
import type { BulkAction, BulkRowResult } from "./bulk-results";

export interface ObservationSelection {
  /** The selected ids among those shown. */
  selected: ReadonlySet<string>;
  toggle(id: string, on: boolean): void;
  setAll(ids: readonly string[], on: boolean): void;
  clear(): void;
  /** The last bulk action and each row's outcome, until the next one. */
  outcome: { action: BulkAction; results: ReadonlyMap<string, BulkRowResult> } | null;
  record(action: BulkAction, results: readonly BulkRowResult[]): void;
}

/** Which observations of a table are selected for a bulk action, and how the last one went for each. */
export function useObservationSelection(shownIds: readonly string[]): ObservationSelection {
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [outcome, setOutcome] = useState<ObservationSelection["outcome"]>(null);
  const shown = new Set(shownIds);
  const selected = new Set([...chosen].filter((id) => shown.has(id)));
  const change = (ids: readonly string[], on: boolean) =>
    setChosen((current) => {
      const next = new Set(current);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  return {
    selected,
    toggle: (id, on) => change([id], on),
    setAll: change,
    clear: () => setChosen(new Set()),
    outcome,
    record: (action, results) => setOutcome({ action, results: new Map(results.map((result) => [result.id, result])) }),
  };
}

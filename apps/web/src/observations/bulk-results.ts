import type { RouterInputs, RouterOutputs } from "../organizations/types";

export type BulkAction = RouterInputs["observations"]["bulk"]["action"];
export type BulkRowResult = RouterOutputs["observations"]["bulk"]["results"][number];

/** What each bulk action is called on its button and what a row it succeeded on became. */
const bulkActionWords: Record<BulkAction, { done: string }> = {
  pause: { done: "paused" },
  resume: { done: "resumed" },
  cancel: { done: "cancelled" },
  set_priority: { done: "reprioritized" },
};

/** Why a row was refused, in a few words, by the single operation's code. */
export function refusalWords(code: string | undefined): string {
  switch (code) {
    case "FORBIDDEN":
      return "not allowed";
    case "NOT_FOUND":
      return "not found";
    case "INVALID_TRANSITION":
      return "not in a status that allows it";
    default:
      return "failed";
  }
}

/** One row's outcome, as its row shows it. */
export const rowOutcome = (action: BulkAction, result: BulkRowResult) => (result.ok ? bulkActionWords[action].done : `refused: ${refusalWords(result.code)}`);

/** "3 paused, 1 refused: not allowed"; with several reasons, each is counted ("2 refused: 1 not allowed, 1 not found"). */
export function summarizeBulk(action: BulkAction, results: readonly BulkRowResult[]): string {
  const done = results.filter((result) => result.ok).length;
  const refused = results.filter((result) => !result.ok);
  const parts = [`${done} ${bulkActionWords[action].done}`];
  if (refused.length > 0) {
    const reasons = new Map<string, number>();
    for (const result of refused) reasons.set(refusalWords(result.code), (reasons.get(refusalWords(result.code)) ?? 0) + 1);
    const why = reasons.size === 1 ? [...reasons.keys()][0]! : [...reasons].map(([reason, count]) => `${count} ${reason}`).join(", ");
    parts.push(`${refused.length} refused: ${why}`);
  }
  return parts.join(", ");
}

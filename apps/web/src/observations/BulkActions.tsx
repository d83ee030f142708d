import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { Ban, ListOrdered, Pause, Play, X } from "lucide-react";
import { Button } from "../components/Button";
import { FormDialog } from "../components/FormDialog";
import { TextAreaField } from "../components/TextAreaField";
import { summarizeError } from "../lib/errors";
import { trpc } from "../trpc";
import { refusalWords, summarizeBulk, type BulkAction } from "./bulk-results";
import { ChangePriorityDialog } from "./ChangePriorityDialog";
import type { Observation } from "./labels";
import { refreshObservations } from "./ObservationLiveUpdates";
import type { ObservationSelection } from "./useObservationSelection";

/** The contract's bound on one bulk request. */
const BULK_LIMIT = 500;
const SHOWN_REFUSALS = 10;
const icon = (Icon: typeof Pause) => <Icon aria-hidden="true" className="size-4" />;

/**
 * The table's bulk actions on the selected rows (POST /observations/bulk): each row is acted on
 * as its own page would act on it, so the server may refuse some; the bar then says how it went
 * ("3 paused, 1 refused: not allowed"), names the refused rows, and marks every row.
 */
export function BulkActions({ items, selection }: { items: readonly Observation[]; selection: ObservationSelection }) {
  const [dialog, setDialog] = useState<"cancel" | "priority" | null>(null);
  const [reason, setReason] = useState("");
  const bulk = useMutation(
    trpc.observations.bulk.mutationOptions({
      onSuccess: async (data, variables) => {
        setDialog(null);
        selection.record(variables.action, data.results);
        await refreshObservations();
      },
    }),
  );
  const open = (next: "cancel" | "priority") => {
    bulk.reset();
    setReason("");
    setDialog(next);
  };
  const ids = [...selection.selected];
  const run = (action: BulkAction, extra: { priority?: number; reason?: string } = {}) => bulk.mutate({ ids, action, ...extra });
  const outcome = selection.outcome;
  const nameOf = (id: string) => items.find((item) => item.id === id)?.name ?? id;
  const refused = outcome ? [...outcome.results.values()].filter((result) => !result.ok) : [];
  const tooMany = ids.length > BULK_LIMIT;
  const off = ids.length === 0 || tooMany || bulk.isPending;
  if (ids.length === 0 && !outcome) return null;

  return (
    <section aria-label="Bulk actions" className="mb-3 rounded-lg bg-indigo-50 px-4 py-3 ring-1 ring-indigo-200">
      <div className="flex flex-wrap items-center gap-2">
        <p className="mr-2 text-sm font-medium text-indigo-900">
          {ids.length === 1 ? "1 observation selected" : `${ids.length} observations selected`}
          {tooMany ? ` (at most ${BULK_LIMIT} at once)` : ""}
        </p>
        <Button variant="secondary" icon={icon(Pause)} disabled={off} onClick={() => run("pause")}>
          Pause
        </Button>
        <Button variant="secondary" icon={icon(Play)} disabled={off} onClick={() => run("resume")}>
          Resume
        </Button>
        <Button variant="secondary" icon={icon(ListOrdered)} disabled={off} onClick={() => open("priority")}>
          Set priority
        </Button>
        <Button variant="secondary" icon={icon(Ban)} disabled={off} onClick={() => open("cancel")}>
          Cancel…
        </Button>
        <Button variant="ghost" icon={icon(X)} disabled={ids.length === 0 || bulk.isPending} onClick={selection.clear}>
          Clear selection
        </Button>
      </div>
      <div role="status" aria-live="polite" className="mt-2 text-sm text-indigo-900 empty:hidden">
        {bulk.isPending ? "Working…" : null}
        {!bulk.isPending && bulk.isError && !dialog ? summarizeError(bulk.error).message : null}
        {!bulk.isPending && outcome ? (
          <>
            <p className="font-medium">{summarizeBulk(outcome.action, [...outcome.results.values()])}.</p>
            {refused.length > 0 ? (
              <ul className="mt-1 list-inside list-disc text-indigo-800">
                {refused.slice(0, SHOWN_REFUSALS).map((result) => (
                  <li key={result.id}>
                    {nameOf(result.id)}: {refusalWords(result.code)}
                  </li>
                ))}
                {refused.length > SHOWN_REFUSALS ? <li>and {refused.length - SHOWN_REFUSALS} more</li> : null}
              </ul>
            ) : null}
          </>
        ) : null}
      </div>
      {dialog === "priority" ? (
        <ChangePriorityDialog
          title={`Set the priority of ${ids.length === 1 ? "1 observation" : `${ids.length} observations`}`}
          description="Only waiting observations (pending or paused) you own or operate take it; the others are reported."
          initial={5}
          busy={bulk.isPending}
          error={bulk.isError ? summarizeError(bulk.error).message : null}
          onSubmit={(priority) => run("set_priority", { priority })}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog === "cancel" ? (
        <FormDialog
          title={`Cancel ${ids.length === 1 ? "1 observation" : `${ids.length} observations`}?`}
          description="They will not be observed; an observatory running one is told to stop. Those you may not cancel are reported."
          submitLabel="Cancel observations"
          submitVariant="danger"
          cancelLabel="Keep them"
          busy={bulk.isPending}
          error={bulk.isError ? summarizeError(bulk.error).message : null}
          onSubmit={() => run("cancel", reason.trim() ? { reason: reason.trim() } : {})}
          onClose={() => setDialog(null)}
        >
          <TextAreaField
            label="Reason (optional)"
            hint="Shown with each cancelled observation."
            maxLength={1000}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
        </FormDialog>
      ) : null}
    </section>
  );
}

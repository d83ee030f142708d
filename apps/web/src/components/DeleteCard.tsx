import type { ReactNode } from "react";
import { Trash2 } from "lucide-react";
import { useNavigate } from "react-router-dom";
import type { UseMutationOptions } from "@tanstack/react-query";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import { Button } from "./Button";
import { ConfirmDialog } from "./ConfirmDialog";

export interface DeleteCardProps<TData, TError, TVariables, TContext> {
  /** "project", "organization": used in the title, the button and the dialog. */
  what: string;
  name: string;
  description: ReactNode;
  /** Why deletion is not possible yet; the button stays off and this is shown instead. */
  blockedBecause?: string | null;
  consequences: ReactNode;
  mutation: UseMutationOptions<TData, TError, TVariables, TContext>;
  variables: TVariables;
  /** Where to go once it is gone, and what to refresh first. */
  leaveTo: string;
  refresh(): Promise<unknown>;
}

/** A red-bordered "Delete …" card with a confirmation; a refusal (409) is shown in the dialog. */
export function DeleteCard<TData, TError, TVariables, TContext>({
  what,
  name,
  description,
  blockedBecause,
  consequences,
  mutation,
  variables,
  leaveTo,
  refresh,
}: DeleteCardProps<TData, TError, TVariables, TContext>) {
  const navigate = useNavigate();
  const deletion = useConfirmedMutation({
    mutation,
    variables: () => variables,
    onSuccess: async () => {
      // Leave first: refreshing while this page is shown would refetch what was just deleted.
      void navigate(leaveTo, { replace: true, state: { notice: `${name} was deleted.` } });
      await refresh();
    },
  });
  return (
    <section aria-labelledby={`delete-${what}-title`} className="rounded-lg bg-white shadow-sm ring-1 ring-red-200">
      <div className="flex flex-col gap-3 px-4 py-5 sm:flex-row sm:items-center sm:justify-between sm:px-6">
        <div className="min-w-0">
          <h2 id={`delete-${what}-title`} className="text-base font-semibold text-red-700">
            Delete {what}
          </h2>
          <p className="mt-1 text-sm text-slate-600">{blockedBecause ?? description}</p>
        </div>
        <Button
          variant="danger"
          icon={<Trash2 aria-hidden="true" className="size-4" />}
          disabled={Boolean(blockedBecause)}
          onClick={() => deletion.ask(true)}
          className="shrink-0"
        >
          Delete {what}
        </Button>
      </div>
      <ConfirmDialog {...deletion.dialog} title={`Delete ${name}?`} confirmLabel={`Delete ${what}`}>
        {consequences}
      </ConfirmDialog>
    </section>
  );
}

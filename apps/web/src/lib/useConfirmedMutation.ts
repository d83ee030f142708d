import { useState } from "react";
import { useMutation, type UseMutationOptions } from "@tanstack/react-query";
import { summarizeError } from "./errors";

export interface ConfirmedMutationOptions<TTarget, TData, TError, TVariables, TContext> {
  mutation: UseMutationOptions<TData, TError, TVariables, TContext>;
  /** The call's input for the confirmed target. */
  variables(target: TTarget): TVariables;
  /** After success; the dialog is already closing. */
  onSuccess?(target: TTarget, data: TData): unknown;
}

/**
 * A mutation on one target (a member, a key…) that runs only once the user confirms it:
 * `ask(target)` opens the dialog, and `dialog` is what a <ConfirmDialog> needs besides its texts.
 */
export function useConfirmedMutation<TTarget, TData, TError, TVariables, TContext>({
  mutation: options,
  variables,
  onSuccess,
}: ConfirmedMutationOptions<TTarget, TData, TError, TVariables, TContext>) {
  const [target, setTarget] = useState<TTarget | null>(null);
  const mutation = useMutation<TData, TError, TVariables, TContext>({
    ...options,
    onSuccess: async (data, ...rest) => {
      setTarget(null);
      await options.onSuccess?.(data, ...rest);
      if (target !== null) await onSuccess?.(target, data);
    },
  });
  return {
    target,
    mutation,
    ask: (next: TTarget) => {
      mutation.reset();
      setTarget(next);
    },
    dialog: {
      open: target !== null,
      busy: mutation.isPending,
      error: mutation.isError ? summarizeError(mutation.error).message : null,
      onCancel: () => setTarget(null),
      onConfirm: () => {
        if (target !== null) mutation.mutate(variables(target));
      },
    },
  };
}

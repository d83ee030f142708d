import type { UseMutationOptions } from "@tanstack/react-query";
import { useNavigate } from "react-router-dom";
import { useMe } from "../../auth/useMe";
import { useConfirmedMutation } from "../../lib/useConfirmedMutation";

export interface RemoveMemberOptions<TMember, TData, TError, TVariables, TContext> {
  mutation: UseMutationOptions<TData, TError, TVariables, TContext>;
  variables(member: TMember): TVariables;
  refresh(): Promise<unknown>;
  /** Drops the cached place once you have left it: you may no longer see it. */
  forget(): void;
  /** Where you go after leaving: the list of such places. */
  leaveTo: string;
  /** Someone else was removed. */
  onRemoved(member: TMember): void;
}

/**
 * Removing a member of an organization or project, once confirmed. Removing yourself is leaving:
 * the place is forgotten and its list opens instead.
 */
export function useRemoveMember<TMember extends { userId: string; name: string }, TData, TError, TVariables, TContext>({
  refresh,
  forget,
  leaveTo,
  onRemoved,
  ...options
}: RemoveMemberOptions<TMember, TData, TError, TVariables, TContext>) {
  const me = useMe();
  const navigate = useNavigate();
  const removal = useConfirmedMutation({
    ...options,
    onSuccess: async (member: TMember) => {
      if (member.userId === me.data?.id) {
        forget();
        await refresh();
        void navigate(leaveTo, { replace: true });
        return;
      }
      onRemoved(member);
      await refresh();
    },
  });
  return { ...removal, removingSelf: removal.target?.userId === me.data?.id };
}

import { useMutation, useQuery } from "@tanstack/react-query";
import { PendingInvitations } from "../components/members/PendingInvitations";
import { queryClient, trpc } from "../trpc";
import { PermissionBadges } from "./PermissionBadges";
import type { ObservatoryPermissions } from "./permissions";

/** Pending invitations to an observatory (for its admins) and the call that sends one. */
export function useObservatoryInvitations(observatoryId: string, canAdmin: boolean) {
  const list = useQuery(trpc.invitations.observatoryList.queryOptions({ id: observatoryId }, { enabled: canAdmin, staleTime: 0 }));
  const refresh = () => queryClient.invalidateQueries(trpc.invitations.observatoryList.queryFilter({ id: observatoryId }));
  const create = useMutation(trpc.invitations.observatoryCreate.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.invitations.observatoryRevoke.mutationOptions({ onSuccess: refresh }));
  const invite = (email: string, permissions: ObservatoryPermissions) => create.mutateAsync({ id: observatoryId, invitation: { email, permissions } });
  const pending = canAdmin ? (
    <PendingInvitations
      label="observatory"
      invitations={list.data?.items ?? []}
      grants={(invitation) => <PermissionBadges permissions={invitation.permissions as ObservatoryPermissions} label={`Permissions for ${invitation.email}`} />}
      resend={(invitation) => invite(invitation.email, invitation.permissions as ObservatoryPermissions)}
      revoke={(invitation) => revoke.mutateAsync({ id: observatoryId, invitationId: invitation.id })}
    />
  ) : null;
  return { invite, pending };
}

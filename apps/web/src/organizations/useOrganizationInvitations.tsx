import { useMutation, useQuery } from "@tanstack/react-query";
import { Badge } from "../components/Badge";
import { PendingInvitations } from "../components/members/PendingInvitations";
import { queryClient, trpc } from "../trpc";
import { organizationPermissionInfo } from "./labels";
import type { OrganizationPermissions } from "./types";

/** Pending invitations to an organization (for those with can_manage_members) and the call that sends one. */
export function useOrganizationInvitations(organizationId: string, canManage: boolean) {
  const list = useQuery(trpc.invitations.organizationList.queryOptions({ id: organizationId }, { enabled: canManage, staleTime: 0 }));
  const refresh = () => queryClient.invalidateQueries(trpc.invitations.organizationList.queryFilter({ id: organizationId }));
  const create = useMutation(trpc.invitations.organizationCreate.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.invitations.organizationRevoke.mutationOptions({ onSuccess: refresh }));
  const invite = (email: string, permissions: OrganizationPermissions) => create.mutateAsync({ id: organizationId, invitation: { email, permissions } });
  const pending = canManage ? (
    <PendingInvitations
      label="organization"
      invitations={list.data?.items ?? []}
      grants={(invitation) => {
        const granted = organizationPermissionInfo.filter((info) => invitation.permissions[info.key]);
        return granted.length === 0 ? (
          <span className="text-xs text-slate-500">Member, no permissions</span>
        ) : (
          <ul aria-label={`Permissions for ${invitation.email}`} className="flex flex-wrap gap-1.5">
            {granted.map((info) => (
              <li key={info.key}>
                <Badge tone="indigo">{info.label}</Badge>
              </li>
            ))}
          </ul>
        );
      }}
      resend={(invitation) => invite(invitation.email, invitation.permissions)}
      revoke={(invitation) => revoke.mutateAsync({ id: organizationId, invitationId: invitation.id })}
    />
  ) : null;
  return { invite, pending };
}

import { useMutation, useQuery } from "@tanstack/react-query";
import { Badge } from "../components/Badge";
import { PendingInvitations } from "../components/members/PendingInvitations";
import { queryClient, trpc } from "../trpc";
import { projectRoleLabels } from "./labels";

/** Pending invitations to a project (for its owner and admins) and the call that sends one. */
export function useProjectInvitations(projectId: string, canManage: boolean) {
  const list = useQuery(trpc.invitations.projectList.queryOptions({ id: projectId }, { enabled: canManage, staleTime: 0 }));
  const refresh = () => queryClient.invalidateQueries(trpc.invitations.projectList.queryFilter({ id: projectId }));
  const create = useMutation(trpc.invitations.projectCreate.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.invitations.projectRevoke.mutationOptions({ onSuccess: refresh }));
  const invite = (email: string, role: "admin" | "member") => create.mutateAsync({ id: projectId, invitation: { email, role } });
  const pending = canManage ? (
    <PendingInvitations
      label="project"
      invitations={list.data?.items ?? []}
      grants={(invitation) => <Badge tone={invitation.role === "admin" ? "indigo" : "slate"}>{projectRoleLabels[invitation.role]}</Badge>}
      resend={(invitation) => invite(invitation.email, invitation.role)}
      revoke={(invitation) => revoke.mutateAsync({ id: projectId, invitationId: invitation.id })}
    />
  ) : null;
  return { invite, pending };
}

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Crown } from "lucide-react";
import { useMe } from "../auth/useMe";
import { Badge } from "../components/Badge";
import { AddMemberByEmailForm } from "../components/members/AddMemberByEmailForm";
import { MemberCell } from "../components/members/MemberCell";
import { RemoveMemberButton } from "../components/members/RemoveMemberButton";
import { RemoveMemberDialog } from "../components/members/RemoveMemberDialog";
import { useRemoveMember } from "../components/members/useRemoveMember";
import { QueryState } from "../components/QueryState";
import { SelectField } from "../components/SelectField";
import { SuccessNotice } from "../components/SuccessNotice";
import { ActionsCell, ActionsTh, DataTable, td, Th } from "../components/Table";
import { formatDateTime } from "../lib/format";
import { queryClient, trpc } from "../trpc";
import { useProjectInvitations } from "./useProjectInvitations";
import { canManageProject, projectRoleLabels, type Project, type ProjectMember } from "./labels";
import { ProjectRoleSelect } from "./ProjectRoleSelect";
import { refreshProjects } from "./refresh";

export function ProjectMembers({ project }: { project: Project }) {
  const me = useMe();
  const canManage = canManageProject(project);
  const invitations = useProjectInvitations(project.id, canManage);
  const members = useQuery(trpc.projects.members.queryOptions({ id: project.id }, { staleTime: 0 }));
  const [notice, setNotice] = useState<string | null>(null);
  const removal = useRemoveMember({
    mutation: trpc.projects.removeMember.mutationOptions(),
    variables: (member: ProjectMember) => ({ id: project.id, userId: member.userId }),
    refresh: refreshProjects,
    forget: () => queryClient.removeQueries(trpc.projects.get.queryFilter({ id: project.id })),
    leaveTo: "/projects",
    onRemoved: (member) => setNotice(`${member.name} was removed.`),
  });

  return (
    <div className="flex flex-col gap-6">
      <section aria-labelledby="project-members-title">
        <h2 id="project-members-title" className="mb-3 text-base font-semibold text-slate-900">
          Members {members.data ? <span className="ml-1 text-sm font-normal text-slate-500">{members.data.items.length}</span> : null}
        </h2>
        <SuccessNotice message={notice} className="mb-3" />
        <QueryState query={members} loading="Loading members" error="Could not load members" isEmpty={(data) => data.items.length === 0}>
          {(data) => (
            <DataTable
              stackOnPhone
              label="Project members"
              columns={
                <>
                  <Th>Member</Th>
                  <Th>Role</Th>
                  <Th className="hidden sm:table-cell">Joined</Th>
                  <ActionsTh />
                </>
              }
            >
              {data.items.map((member) => {
                const self = member.userId === me.data?.id;
                const owner = member.role === "owner";
                return (
                  <tr key={member.userId}>
                    <MemberCell name={member.name} email={member.email} self={self} narrow />
                    <td className={td}>
                      {canManage && !owner ? (
                        <ProjectRoleSelect projectId={project.id} member={member} onChanged={setNotice} />
                      ) : (
                        <Badge tone={owner ? "indigo" : member.role === "admin" ? "sky" : "slate"}>
                          {owner ? <Crown aria-hidden="true" className="size-3" /> : null}
                          {projectRoleLabels[member.role]}
                        </Badge>
                      )}
                    </td>
                    <td className={`${td} hidden text-slate-500 sm:table-cell`}>{formatDateTime(member.joinedAt)}</td>
                    <ActionsCell>
                      <RemoveMemberButton name={member.name} self={self} owner={owner} canRemove={canManage} onClick={() => removal.ask(member)} />
                    </ActionsCell>
                  </tr>
                );
              })}
            </DataTable>
          )}
        </QueryState>
        <p className="mt-2 text-sm text-slate-500">The project's owner cannot be removed.</p>
      </section>
      {invitations.pending}

      {canManage ? <AddProjectMember projectId={project.id} invite={invitations.invite} /> : null}
      <RemoveMemberDialog dialog={removal.dialog} self={removal.removingSelf} place="project">
        {removal.removingSelf ? (
          <>
            You will no longer see <strong className="font-semibold text-slate-900">{project.name}</strong> unless someone adds you again.
          </>
        ) : (
          <>
            <strong className="font-semibold text-slate-900">{removal.target?.name}</strong> will no longer see {project.name}.
          </>
        )}
      </RemoveMemberDialog>
    </div>
  );
}

function AddProjectMember({ projectId, invite }: { projectId: string; invite(email: string, role: "admin" | "member"): Promise<unknown> }) {
  const [role, setRole] = useState<"admin" | "member">("member");
  return (
    <AddMemberByEmailForm
      title="Add a member"
      description="By the exact email address of their Meridian account. Admins may change the project and its members."
      formLabel="Add a project member"
      otherFields={["role"]}
      mutation={trpc.projects.addMember.mutationOptions()}
      invite={(email) => invite(email, role)}
      input={(email) => ({ id: projectId, email, role })}
      onAdded={refreshProjects}
    >
      {(emailField, problem) => (
        <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
          {emailField}
          <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as "admin" | "member")} error={problem?.fieldErrors.role}>
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </SelectField>
        </div>
      )}
    </AddMemberByEmailForm>
  );
}

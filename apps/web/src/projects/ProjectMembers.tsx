import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Crown, LogOut, Trash2, UserPlus } from "lucide-react";
import { useNavigate } from "react-router-dom";
import { useMe } from "../auth/useMe";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Spinner } from "../components/Spinner";
import { TextField } from "../components/TextField";
import { UserAvatar } from "../components/UserAvatar";
import { summarizeError } from "../lib/errors";
import { formatDateTime } from "../lib/format";
import { Badge } from "../organizations/ui/Badge";
import { formProblem } from "../organizations/ui/form-errors";
import { SelectField } from "../organizations/ui/SelectField";
import { TableFrame, tbody, td, th } from "../organizations/ui/Table";
import { queryClient, trpc } from "../trpc";
import { canManageProject, projectRoleLabels, type Project, type ProjectMember } from "./labels";

const refreshProjects = () => queryClient.invalidateQueries(trpc.projects.pathFilter());

export function ProjectMembers({ project }: { project: Project }) {
  const me = useMe();
  const navigate = useNavigate();
  const canManage = canManageProject(project);
  const members = useQuery(trpc.projects.members.queryOptions({ id: project.id }, { staleTime: 0 }));
  const [removing, setRemoving] = useState<ProjectMember | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const remove = useMutation(
    trpc.projects.removeMember.mutationOptions({
      onSuccess: async (_result, input) => {
        const name = members.data?.items.find((member) => member.userId === input.userId)?.name ?? "The member";
        setRemoving(null);
        if (input.userId === me.data?.id) {
          queryClient.removeQueries(trpc.projects.get.queryFilter({ id: project.id }));
          await refreshProjects();
          navigate("/projects", { replace: true });
          return;
        }
        setNotice(`${name} was removed.`);
        await refreshProjects();
      },
    }),
  );
  const items = members.data?.items ?? [];
  const removingSelf = removing?.userId === me.data?.id;

  return (
    <div className="flex flex-col gap-6">
      <section aria-labelledby="project-members-title">
        <h2 id="project-members-title" className="mb-3 text-base font-semibold text-slate-900">
          Members {members.data ? <span className="ml-1 text-sm font-normal text-slate-500">{items.length}</span> : null}
        </h2>
        {notice ? (
          <Alert tone="success" className="mb-3">
            {notice}
          </Alert>
        ) : null}
        {members.isPending ? <Spinner label="Loading members" /> : null}
        {members.isError ? <Alert tone="error">Could not load members: {summarizeError(members.error).message}</Alert> : null}
        {items.length > 0 ? (
          <TableFrame label="Project members">
            <thead className="bg-slate-50">
              <tr>
                <th scope="col" className={th}>Member</th>
                <th scope="col" className={th}>Role</th>
                <th scope="col" className={`${th} hidden sm:table-cell`}>Joined</th>
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className={tbody}>
              {items.map((member) => {
                const self = member.userId === me.data?.id;
                const owner = member.role === "owner";
                return (
                  <tr key={member.userId}>
                    <td className={td}>
                      <div className="flex min-w-40 items-center gap-3">
                        <UserAvatar name={member.name} url={null} />
                        <div className="min-w-0">
                          <p className="truncate font-medium text-slate-900">
                            {member.name}
                            {self ? <span className="ml-1 text-xs font-normal text-slate-500">(you)</span> : null}
                          </p>
                          <p className="truncate text-xs text-slate-500">{member.email}</p>
                        </div>
                      </div>
                    </td>
                    <td className={td}>
                      <Badge tone={owner ? "indigo" : member.role === "admin" ? "sky" : "slate"}>
                        {owner ? <Crown aria-hidden="true" className="size-3" /> : null}
                        {projectRoleLabels[member.role]}
                      </Badge>
                    </td>
                    <td className={`${td} hidden text-slate-500 sm:table-cell`}>{formatDateTime(member.joinedAt)}</td>
                    <td className={`${td} text-right whitespace-nowrap`}>
                      {owner ? null : self ? (
                        <Button variant="ghost" icon={<LogOut aria-hidden="true" className="size-4" />} onClick={() => { remove.reset(); setRemoving(member); }}>
                          Leave
                        </Button>
                      ) : canManage ? (
                        <Button variant="ghost" aria-label={`Remove ${member.name}`} icon={<Trash2 aria-hidden="true" className="size-4 text-red-600" />} onClick={() => { remove.reset(); setRemoving(member); }}>
                          Remove
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </TableFrame>
        ) : null}
        <p className="mt-2 text-sm text-slate-500">The project's owner cannot be removed.</p>
      </section>
      {canManage ? <AddProjectMember projectId={project.id} /> : null}
      <ConfirmDialog
        open={removing !== null}
        title={removingSelf ? "Leave project?" : "Remove member?"}
        confirmLabel={removingSelf ? "Leave project" : "Remove member"}
        busy={remove.isPending}
        error={remove.isError ? summarizeError(remove.error).message : null}
        onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate({ id: project.id, userId: removing.userId })}
      >
        {removingSelf ? (
          <>
            You will no longer see <strong className="font-semibold text-slate-900">{project.name}</strong> unless someone adds you again.
          </>
        ) : (
          <>
            <strong className="font-semibold text-slate-900">{removing?.name}</strong> will no longer see {project.name}.
          </>
        )}
      </ConfirmDialog>
    </div>
  );
}

function AddProjectMember({ projectId }: { projectId: string }) {
  const [email, setEmail] = useState("");
  const [added, setAdded] = useState<string | null>(null);
  const [role, setRole] = useState<"admin" | "member">("member");
  const [blank, setBlank] = useState<string | null>(null);
  const add = useMutation(
    trpc.projects.addMember.mutationOptions({
      onSuccess: async (member) => {
        setEmail("");
        setAdded(`${member.name} was added.`);
        await refreshProjects();
      },
    }),
  );
  const problem = formProblem(add.error, { codeFields: { ALREADY_MEMBER: "email" } });
  const emailError = blank ?? (problem?.code === "USER_NOT_FOUND" ? "No Meridian account uses this email address." : problem?.fieldErrors.email);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!email.trim()) {
      setBlank("Enter the email address of the person to add.");
      return add.reset();
    }
    setBlank(null);
    setAdded(null);
    add.mutate({ id: projectId, email, role });
  };
  return (
    <Card title="Add a member" description="By the exact email address of their Meridian account. Admins may change the project and its members.">
      <form onSubmit={submit} noValidate aria-label="Add a project member" className="flex flex-col gap-4">
        {problem && !emailError && !problem.fieldErrors.role ? <Alert tone="error">{problem.message}</Alert> : null}
        {added ? <Alert tone="success">{added}</Alert> : null}
        <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
          <TextField label="Member email" type="email" autoComplete="off" required value={email} onChange={(e) => setEmail(e.target.value)} error={emailError} />
          <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as "admin" | "member")} error={problem?.fieldErrors.role}>
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </SelectField>
        </div>
        <div>
          <Button type="submit" busy={add.isPending} icon={<UserPlus aria-hidden="true" className="size-4" />}>
            Add member
          </Button>
        </div>
      </form>
    </Card>
  );
}

import { useMutation } from "@tanstack/react-query";
import { summarizeError } from "../lib/errors";
import { trpc } from "../trpc";
import type { ProjectMember } from "./labels";
import { refreshProjects } from "./refresh";

/** Admin ↔ member for one member, saved as soon as it is chosen; a refusal is said next to it. */
export function ProjectRoleSelect({ projectId, member, onChanged }: { projectId: string; member: ProjectMember; onChanged(message: string): void }) {
  const change = useMutation(
    trpc.projects.updateMember.mutationOptions({
      onSuccess: async (updated) => {
        await refreshProjects();
        onChanged(`${updated.name} is now ${updated.role === "admin" ? "an admin" : "a member"}.`);
      },
    }),
  );
  const errorId = `role-error-${member.userId}`;
  return (
    <div className="flex flex-col gap-1">
      <select
        aria-label={`Role of ${member.name}`}
        aria-describedby={change.isError ? errorId : undefined}
        value={change.isPending ? change.variables.role : member.role}
        disabled={change.isPending}
        onChange={(event) => change.mutate({ id: projectId, userId: member.userId, role: event.target.value as "admin" | "member" })}
        className={
          "w-full max-w-[9rem] rounded-md border-0 py-1 pr-8 pl-2 text-sm text-slate-900 ring-1 " +
          "ring-slate-300 ring-inset focus:ring-2 focus:ring-indigo-600"
        }
      >
        <option value="member">Member</option>
        <option value="admin">Admin</option>
      </select>
      {change.isError ? (
        <p id={errorId} role="alert" className="text-xs text-red-600">
          {summarizeError(change.error).message}
        </p>
      ) : null}
    </div>
  );
}

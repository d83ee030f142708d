import { DeleteCard } from "../components/DeleteCard";
import { trpc } from "../trpc";
import type { Project } from "./labels";
import { refreshProjects } from "./refresh";

/** The owner deletes an archived project; until then the card says to archive it first. */
export function DeleteProjectCard({ project }: { project: Project }) {
  return (
    <DeleteCard
      what="project"
      name={project.name}
      description="Removes the project and its memberships for good, and ends its announcements."
      blockedBecause={project.status === "archived" ? null : "Only an archived project can be deleted: set its status to Archived and save first."}
      consequences={
        <>
          <strong className="font-semibold text-slate-900">{project.name}</strong> and its member list will be gone for everyone, and its announcements stop
          showing: active ones are cancelled, acknowledged ones end. This cannot be undone.
        </>
      }
      mutation={trpc.projects.delete.mutationOptions()}
      variables={{ id: project.id }}
      leaveTo="/projects"
      refresh={refreshProjects}
    />
  );
}

import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "../components/Alert";
import { Card } from "../components/Card";
import { SaveFooter } from "../components/SaveFooter";
import { SelectField } from "../components/SelectField";
import { TextField } from "../components/TextField";
import { formProblem } from "../lib/form-errors";
import { trpc } from "../trpc";
import { ProjectFrameGrading } from "./FrameGradingForm";
import { canManageProject, projectStatuses, projectStatusInfo, type Project, type ProjectStatus } from "./labels";
import { refreshProjects } from "./refresh";

export function ProjectDetails({ project }: { project: Project }) {
  const canManage = canManageProject(project);
  const [name, setName] = useState(project.name);
  const [status, setStatus] = useState<ProjectStatus>(project.status);
  const [blank, setBlank] = useState<string | null>(null);
  const save = useMutation(
    trpc.projects.update.mutationOptions({
      onSuccess: async (saved) => {
        setName(saved.name);
        setStatus(saved.status);
        await refreshProjects();
      },
    }),
  );
  const problem = formProblem(save.error, { prefix: "update" });
  const unchanged = name.trim() === project.name && status === project.status;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!name.trim()) {
      setBlank("Give the project a name.");
      return save.reset();
    }
    setBlank(null);
    save.mutate({ id: project.id, update: { ...(name.trim() !== project.name ? { name } : {}), ...(status !== project.status ? { status } : {}) } });
  };
  return (
    <>
      <form onSubmit={submit} noValidate aria-label="Project details">
        <Card
          title="Details"
          description={canManage ? "The owner and project admins change these." : "Only the owner and project admins change these."}
          footer={
            canManage ? (
              <SaveFooter saved={save.isSuccess} savedText="Project saved" busy={save.isPending} unchanged={unchanged}>
                Save changes
              </SaveFooter>
            ) : undefined
          }
        >
          {problem && !problem.fieldErrors.name && !problem.fieldErrors.status ? (
            <Alert tone="error" className="mb-4">
              {problem.message}
            </Alert>
          ) : null}
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField
              label="Project name"
              required
              maxLength={200}
              value={name}
              disabled={!canManage}
              onChange={(e) => setName(e.target.value)}
              error={blank ?? problem?.fieldErrors.name}
            />
            <SelectField
              label="Status"
              value={status}
              disabled={!canManage}
              onChange={(e) => setStatus(e.target.value as ProjectStatus)}
              error={problem?.fieldErrors.status}
              hint={projectStatusInfo[status].description}
            >
              {projectStatuses.map((value) => (
                <option key={value} value={value}>
                  {projectStatusInfo[value].label}
                </option>
              ))}
            </SelectField>
          </div>
        </Card>
      </form>
      <ProjectFrameGrading project={project} />
    </>
  );
}

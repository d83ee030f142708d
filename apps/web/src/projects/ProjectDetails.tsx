import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { TextField } from "../components/TextField";
import { formProblem } from "../organizations/ui/form-errors";
import { SelectField } from "../organizations/ui/SelectField";
import { queryClient, trpc } from "../trpc";
import { canManageProject, projectStatuses, projectStatusInfo, type Project, type ProjectStatus } from "./labels";

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
        await queryClient.invalidateQueries(trpc.projects.pathFilter());
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
    <form onSubmit={submit} noValidate aria-label="Project details">
      <Card
        title="Details"
        description={canManage ? "The owner and project admins change these." : "Only the owner and project admins change these."}
        footer={
          canManage ? (
            <>
              {save.isSuccess && unchanged ? (
                <p role="status" className="mr-auto text-sm text-emerald-700">
                  Project saved
                </p>
              ) : null}
              <Button type="submit" busy={save.isPending} disabled={unchanged}>
                Save changes
              </Button>
            </>
          ) : undefined
        }
      >
        {problem && !problem.fieldErrors.name && !problem.fieldErrors.status ? (
          <Alert tone="error" className="mb-4">
            {problem.message}
          </Alert>
        ) : null}
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Project name" required maxLength={200} value={name} disabled={!canManage} onChange={(e) => setName(e.target.value)} error={blank ?? problem?.fieldErrors.name} />
          <SelectField label="Status" value={status} disabled={!canManage} onChange={(e) => setStatus(e.target.value as ProjectStatus)} error={problem?.fieldErrors.status} hint={projectStatusInfo[status].description}>
            {projectStatuses.map((value) => (
              <option key={value} value={value}>
                {projectStatusInfo[value].label}
              </option>
            ))}
          </SelectField>
        </div>
      </Card>
    </form>
  );
}

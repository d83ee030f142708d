import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { SelectField } from "../components/SelectField";
import { TextField } from "../components/TextField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { canCreateFor, useMyOrganizationAccess } from "../organizations/useMyOrganizations";
import { trpc } from "../trpc";
import type { Project } from "./labels";
import { refreshProjects } from "./refresh";

export function CreateProjectDialog({ onClose, onCreated }: { onClose(): void; onCreated(project: Project): void }) {
  const [name, setName] = useState("");
  const [organizationId, setOrganizationId] = useState("");
  const [blank, setBlank] = useState<string | null>(null);
  const access = useMyOrganizationAccess();
  const organizations = access.organizations.filter((organization) => canCreateFor(organization, "can_manage_projects"));
  const create = useMutation(
    trpc.projects.create.mutationOptions({
      onSuccess: async (project) => {
        await refreshProjects();
        onCreated(project);
      },
    }),
  );
  const problem = formProblem(create.error);
  const submit = () => {
    if (!name.trim()) {
      setBlank("Give the project a name.");
      return create.reset();
    }
    setBlank(null);
    create.mutate({ name, ...(organizationId ? { organizationId } : {}) });
  };
  return (
    <FormDialog
      title="Create project"
      description="An observing programme: its members plan and share observations."
      submitLabel="Create project"
      busy={create.isPending}
      error={generalMessage(problem, ["name", "organizationId"])}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label="Project name"
        required
        maxLength={200}
        placeholder="e.g. Variable stars 2026"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={blank ?? problem?.fieldErrors.name}
      />
      <SelectField
        label="Organization"
        value={organizationId}
        onChange={(e) => setOrganizationId(e.target.value)}
        error={problem?.fieldErrors.organizationId}
        hint={access.isPending ? "Loading your organizations…" : "Optional. Lists organizations where you may manage projects."}
      >
        <option value="">None (personal project)</option>
        {organizations.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name}
          </option>
        ))}
      </SelectField>
    </FormDialog>
  );
}

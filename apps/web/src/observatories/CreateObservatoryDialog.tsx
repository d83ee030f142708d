import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { SelectField } from "../components/SelectField";
import { TextField } from "../components/TextField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { canCreateFor, useMyOrganizationAccess } from "../organizations/useMyOrganizations";
import { trpc } from "../trpc";
import { emptyLocation, LocationFieldset, locationErrorPaths, checkObservatoryFields, type LocationDraft } from "./LocationFields";
import type { Observatory } from "./permissions";
import { refreshObservatories } from "./refresh";

const PERSONAL = "";

export function CreateObservatoryDialog({ onClose, onCreated }: { onClose(): void; onCreated(observatory: Observatory): void }) {
  const [name, setName] = useState("");
  const [ownerId, setOwnerId] = useState(PERSONAL);
  const [location, setLocation] = useState<LocationDraft>(emptyLocation);
  const [local, setLocal] = useState<Record<string, string>>({});
  const access = useMyOrganizationAccess();
  const owners = access.organizations.filter((organization) => canCreateFor(organization, "can_manage_observatories"));
  const create = useMutation(
    trpc.observatories.create.mutationOptions({
      onSuccess: async (observatory) => {
        await refreshObservatories();
        onCreated(observatory);
      },
    }),
  );
  const problem = formProblem(create.error);
  const errors: Record<string, string | undefined> = { ...problem?.fieldErrors, ...local };

  const submit = () => {
    const parsed = checkObservatoryFields(name, location);
    setLocal(parsed.errors);
    if (Object.keys(parsed.errors).length > 0) return create.reset();
    create.mutate({
      name,
      ...(ownerId ? { organizationId: ownerId } : {}),
      ...(parsed.location ? { location: parsed.location } : {}),
    });
  };

  return (
    <FormDialog
      title="Create observatory"
      description="Connect its telescope software afterwards. You can invite people and organizations once it exists."
      submitLabel="Create observatory"
      busy={create.isPending}
      error={generalMessage(problem, ["name", "organizationId", ...locationErrorPaths])}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label="Observatory name"
        name="name"
        required
        maxLength={200}
        placeholder="e.g. Dome 2 — La Palma"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={errors.name}
      />
      <SelectField
        label="Owner"
        value={ownerId}
        onChange={(e) => setOwnerId(e.target.value)}
        error={errors.organizationId}
        hint={
          access.isPending
            ? "Loading your organizations…"
            : owners.length === 0
              ? "Only organizations where you may manage observatories are listed."
              : "An organization's owner and managers control the observatories it owns."
        }
      >
        <option value={PERSONAL}>Me (personal)</option>
        {owners.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name}
          </option>
        ))}
      </SelectField>
      <LocationFieldset draft={location} onChange={setLocation} errors={errors} />
    </FormDialog>
  );
}

import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { SelectField } from "../components/SelectField";
import { TextField } from "../components/TextField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { canCreateFor, useMyOrganizationAccess } from "../organizations/useMyOrganizations";
import { trpc } from "../trpc";
import type { Observatory } from "./permissions";
import { refreshObservatories } from "./refresh";

const PERSONAL = "";
const locationFields = [
  { key: "latitude", label: "Latitude", hint: "−90 to 90°", min: -90, max: 90 },
  { key: "longitude", label: "Longitude", hint: "−180 to 180°", min: -180, max: 180 },
  { key: "elevation", label: "Elevation (m)", hint: "Metres above sea level", min: -500, max: 10_000 },
] as const;
type LocationKey = (typeof locationFields)[number]["key"];

export function CreateObservatoryDialog({ onClose, onCreated }: { onClose(): void; onCreated(observatory: Observatory): void }) {
  const [name, setName] = useState("");
  const [ownerId, setOwnerId] = useState(PERSONAL);
  const [location, setLocation] = useState<Record<LocationKey, string>>({ latitude: "", longitude: "", elevation: "" });
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
    const found: Record<string, string> = {};
    if (!name.trim()) found.name = "Give the observatory a name.";
    const filled = locationFields.filter((field) => location[field.key].trim() !== "");
    const numbers: Partial<Record<LocationKey, number>> = {};
    if (filled.length > 0) {
      for (const field of locationFields) {
        const raw = location[field.key].trim();
        const value = Number(raw);
        if (!raw) found[`location.${field.key}`] = "Enter all three values, or none.";
        else if (!Number.isFinite(value)) found[`location.${field.key}`] = "Enter a number.";
        else numbers[field.key] = value;
      }
    }
    setLocal(found);
    if (Object.keys(found).length > 0) return create.reset();
    create.mutate({
      name,
      ...(ownerId ? { organizationId: ownerId } : {}),
      ...(filled.length > 0 ? { location: { latitude: numbers.latitude!, longitude: numbers.longitude!, elevation: numbers.elevation! } } : {}),
    });
  };

  return (
    <FormDialog
      title="Create observatory"
      description="Connect its telescope software afterwards. You can invite people and organizations once it exists."
      submitLabel="Create observatory"
      busy={create.isPending}
      error={generalMessage(problem, ["name", "organizationId", ...locationFields.map((field) => `location.${field.key}`)])}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField label="Observatory name" name="name" required maxLength={200} placeholder="e.g. Dome 2 — La Palma" value={name} onChange={(e) => setName(e.target.value)} error={errors.name} />
      <SelectField
        label="Owner"
        value={ownerId}
        onChange={(e) => setOwnerId(e.target.value)}
        error={errors.organizationId}
        hint={access.isPending ? "Loading your organizations…" : owners.length === 0 ? "Only organizations where you may manage observatories are listed." : "An organization's owner and managers control the observatories it owns."}
      >
        <option value={PERSONAL}>Me (personal)</option>
        {owners.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name}
          </option>
        ))}
      </SelectField>
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">
          Location <span className="font-normal text-slate-500">(optional)</span>
        </legend>
        <div className="mt-2 grid gap-3 sm:grid-cols-3">
          {locationFields.map((field) => (
            <TextField
              key={field.key}
              label={field.label}
              type="number"
              inputMode="decimal"
              step="any"
              min={field.min}
              max={field.max}
              value={location[field.key]}
              onChange={(e) => setLocation((current) => ({ ...current, [field.key]: e.target.value }))}
              error={errors[`location.${field.key}`]}
              hint={field.hint}
            />
          ))}
        </div>
      </fieldset>
    </FormDialog>
  );
}

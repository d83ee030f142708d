import { SelectField } from "../components/SelectField";
import { TextAreaField } from "../components/TextAreaField";
import { TextField } from "../components/TextField";
import { organizationTypeLabels, organizationTypes } from "./labels";
import type { OrganizationType } from "./types";

export interface OrganizationFormValues {
  name: string;
  shortName: string;
  type: OrganizationType | "";
  description: string;
  contactEmail: string;
}

export const emptyOrganizationForm: OrganizationFormValues = { name: "", shortName: "", type: "", description: "", contactEmail: "" };

export const organizationFormFields = ["name", "shortName", "type", "description", "contactEmail"] as const;

/** Blank required fields, checked before asking the server (which checks everything again). */
export function missingOrganizationFields(values: OrganizationFormValues): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!values.name.trim()) errors.name = "Enter the organization's name.";
  if (!values.shortName.trim()) errors.shortName = "Choose a short name.";
  if (!values.type) errors.type = "Choose what kind of organization this is.";
  if (!values.contactEmail.trim()) errors.contactEmail = "Enter a contact email address.";
  return errors;
}

export function OrganizationFields({ values, errors, onChange }: { values: OrganizationFormValues; errors: Record<string, string | undefined>; onChange(values: OrganizationFormValues): void }) {
  const set = <K extends keyof OrganizationFormValues>(key: K, value: OrganizationFormValues[K]) => onChange({ ...values, [key]: value });
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <TextField label="Name" name="name" required maxLength={200} autoComplete="organization" value={values.name} onChange={(e) => set("name", e.target.value)} error={errors.name} className="sm:col-span-2" />
      <TextField
        label="Short name"
        name="shortName"
        required
        maxLength={32}
        autoCapitalize="none"
        spellCheck={false}
        placeholder="e.g. kepler-obs"
        value={values.shortName}
        onChange={(e) => set("shortName", e.target.value)}
        error={errors.shortName}
        hint="2–32 letters, digits, “-” or “_”. Unique on this server."
      />
      <SelectField label="Type" name="type" required value={values.type} onChange={(e) => set("type", e.target.value as OrganizationType)} error={errors.type}>
        <option value="" disabled>
          Choose a type…
        </option>
        {organizationTypes.map((type) => (
          <option key={type} value={type}>
            {organizationTypeLabels[type]}
          </option>
        ))}
      </SelectField>
      <TextAreaField label="Description" name="description" maxLength={5000} value={values.description} onChange={(e) => set("description", e.target.value)} error={errors.description} hint="Optional." className="sm:col-span-2" />
      <TextField
        label="Contact email"
        name="contactEmail"
        type="email"
        required
        autoComplete="email"
        value={values.contactEmail}
        onChange={(e) => set("contactEmail", e.target.value)}
        error={errors.contactEmail}
        className="sm:col-span-2"
      />
    </div>
  );
}

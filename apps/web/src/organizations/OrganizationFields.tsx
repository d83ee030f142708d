import { SHORT_NAME_FORMAT, SHORT_NAME_MESSAGE, shortNameProblem } from "@meridian/rules";
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

/** The API's own message for a short name of the wrong form; nothing while the field is blank. */
const shortNameFormProblem = (shortName: string) => (shortName.trim() ? shortNameProblem(shortName) : null);

/** Blank required fields and a short name of the wrong form, checked before asking the server (which checks everything again). */
export function missingOrganizationFields(values: OrganizationFormValues): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!values.name.trim()) errors.name = "Enter the organization's name.";
  const shortNameError = values.shortName.trim() ? shortNameProblem(values.shortName) : "Choose a short name.";
  if (shortNameError) errors.shortName = shortNameError;
  if (!values.type) errors.type = "Choose what kind of organization this is.";
  if (!values.contactEmail.trim()) errors.contactEmail = "Enter a contact email address.";
  return errors;
}

export function OrganizationFields({
  values,
  errors,
  onChange,
}: {
  values: OrganizationFormValues;
  errors: Record<string, string | undefined>;
  onChange(values: OrganizationFormValues): void;
}) {
  const set = <K extends keyof OrganizationFormValues>(key: K, value: OrganizationFormValues[K]) => onChange({ ...values, [key]: value });
  // Checked as the user types, in the words the API would use; a format error from the last submit goes once the form is right.
  const shortNameError =
    shortNameFormProblem(values.shortName) ?? (errors.shortName === SHORT_NAME_MESSAGE && values.shortName.trim() ? undefined : errors.shortName);
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <TextField
        label="Name"
        name="name"
        required
        maxLength={200}
        autoComplete="organization"
        value={values.name}
        onChange={(e) => set("name", e.target.value)}
        error={errors.name}
        className="sm:col-span-2"
      />
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
        error={shortNameError}
        hint={`${SHORT_NAME_FORMAT.charAt(0).toUpperCase()}${SHORT_NAME_FORMAT.slice(1)}. Unique on this server.`}
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
      <TextAreaField
        label="Description"
        name="description"
        maxLength={5000}
        value={values.description}
        onChange={(e) => set("description", e.target.value)}
        error={errors.description}
        hint="Optional."
        className="sm:col-span-2"
      />
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

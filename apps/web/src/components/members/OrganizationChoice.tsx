import { SelectField } from "../SelectField";
import { TextField } from "../TextField";

/** The choice that asks for an organization's ID instead: one the person may name though it is not in the list. */
export const OTHER_ORGANIZATION = "__other__";

/**
 * An organization: one of `organizations`, or any other entered by its ID. `error` shows under the control in use: the
 * list, or the ID field once "Another organization" is chosen.
 */
export function OrganizationChoice({
  label,
  placeholder,
  organizations,
  choice,
  onChoose,
  otherId,
  onOtherIdChange,
  error,
  otherIdHint,
}: {
  label: string;
  placeholder: string;
  organizations: Array<{ id: string; name: string }>;
  choice: string;
  onChoose(choice: string): void;
  otherId: string;
  onOtherIdChange(id: string): void;
  error?: string;
  otherIdHint?: string;
}) {
  const other = choice === OTHER_ORGANIZATION;
  return (
    <>
      <SelectField label={label} value={choice} onChange={(e) => onChoose(e.target.value)} error={other ? undefined : error}>
        <option value="" disabled>
          {placeholder}
        </option>
        {organizations.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name}
          </option>
        ))}
        <option value={OTHER_ORGANIZATION}>Another organization (enter its ID)…</option>
      </SelectField>
      {other ? (
        <TextField
          label="Organization ID"
          autoComplete="off"
          spellCheck={false}
          value={otherId}
          onChange={(e) => onOtherIdChange(e.target.value)}
          error={error}
          hint={otherIdHint}
        />
      ) : null}
    </>
  );
}

import { SelectField } from "../SelectField";

/** "New owner": a choice among current members, each shown as "Name (email)". */
export function NewOwnerSelect({
  members,
  loading = false,
  value,
  onChange,
  error,
  hint,
}: {
  members: Array<{ userId: string; name: string; email: string }>;
  loading?: boolean;
  value: string;
  onChange(userId: string): void;
  error?: string;
  hint?: string;
}) {
  return (
    <SelectField label="New owner" value={value} onChange={(e) => onChange(e.target.value)} error={error} hint={hint}>
      <option value="" disabled>
        {loading ? "Loading…" : "Choose a member…"}
      </option>
      {members.map((member) => (
        <option key={member.userId} value={member.userId}>
          {member.name} ({member.email})
        </option>
      ))}
    </SelectField>
  );
}

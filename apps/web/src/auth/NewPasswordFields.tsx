import { TextField } from "../components/TextField";
import { missingFields } from "../lib/required-fields";

// A type, not an interface: `missingFields` takes it as a string record.
export type NewPasswordValues = {
  newPassword: string;
  confirmation: string;
};

export type NewPasswordErrors = Partial<Record<keyof NewPasswordValues, string>>;

const MIN_PASSWORD_LENGTH = 8;

/** What can be told before asking the server: a blank field, or a confirmation that differs. */
export function checkNewPassword(values: NewPasswordValues): NewPasswordErrors {
  const errors: NewPasswordErrors = missingFields(values, { newPassword: "Choose a new password.", confirmation: "Type the new password again." });
  if (!errors.newPassword && !errors.confirmation && values.newPassword !== values.confirmation) errors.confirmation = "The two passwords do not match.";
  return errors;
}

/** "New password" and "Confirm new password", as the password-change and reset forms ask for them. */
export function NewPasswordFields({
  values,
  errors,
  onChange,
}: {
  values: NewPasswordValues;
  errors: NewPasswordErrors;
  onChange(values: NewPasswordValues): void;
}) {
  return (
    <>
      <TextField
        label="New password"
        type="password"
        name="new-password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        value={values.newPassword}
        onChange={(event) => onChange({ ...values, newPassword: event.target.value })}
        error={errors.newPassword}
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
      />
      <TextField
        label="Confirm new password"
        type="password"
        name="confirm-password"
        autoComplete="new-password"
        required
        value={values.confirmation}
        onChange={(event) => onChange({ ...values, confirmation: event.target.value })}
        error={errors.confirmation}
      />
    </>
  );
}

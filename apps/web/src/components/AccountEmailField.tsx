import { TextField } from "./TextField";

/** The email address of a Meridian account, as the signed-out pages ask for it: the browser may fill in the one it keeps. */
export function AccountEmailField({ value, onChange, error }: { value: string; onChange(email: string): void; error?: string }) {
  return (
    <TextField label="Email" type="email" name="email" autoComplete="email" required value={value} onChange={(e) => onChange(e.target.value)} error={error} />
  );
}

import { AppError } from "../errors";

/** Another account signs in with this address (compared case-insensitively, as the unique index does). */
export const emailTaken = () =>
  new AppError("EMAIL_TAKEN", "An account with this email already exists", {
    errors: [{ path: "email", message: "Another account already uses this email address." }],
  });

/** An address as a notice to someone else may show it: its first character and its domain ("j***@example.org"). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  return `${Array.from(email.slice(0, Math.max(at, 0)))[0] ?? ""}***${email.slice(at)}`;
}

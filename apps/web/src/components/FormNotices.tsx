import { Alert } from "./Alert";

/** The top of a form: what failed (when no field shows it), or that the save went through. */
export function FormNotices({ error, success }: { error: string | null; success: string | null }) {
  if (error)
    return (
      <Alert tone="error" className="mb-4">
        {error}
      </Alert>
    );
  if (success)
    return (
      <Alert tone="success" className="mb-4">
        {success}
      </Alert>
    );
  return null;
}

import { Alert } from "./Alert";

/** A success message, also read out: the live region is in the page before any message arrives. */
export function SuccessNotice({ message, className }: { message: string | null; className?: string }) {
  return (
    <>
      <p role="status" aria-live="polite" className="sr-only">
        {message ?? ""}
      </p>
      {message ? (
        <Alert tone="success" className={className}>
          {message}
        </Alert>
      ) : null}
    </>
  );
}

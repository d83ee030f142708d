import { useId, type ReactNode } from "react";

/** What every labelled form control takes besides its own attributes. */
export interface FieldProps {
  label: string;
  error?: string;
  hint?: ReactNode;
  className?: string;
}

/** The attributes that tie a control to its label and message, and its frame (red while in error). */
export interface FieldControlProps {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
  className: string;
}

/** Label above, the control, then the error (or else the hint) below it, announced with the control. */
export function Field({ label, error, hint, className = "", children }: FieldProps & { children(control: FieldControlProps): ReactNode }) {
  const id = useId();
  const messageId = `${id}-message`;
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      {children({
        id,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": error || hint ? messageId : undefined,
        className:
          `mt-1.5 block w-full rounded-md border-0 bg-white text-sm text-slate-900 shadow-sm ` +
          `ring-1 ring-inset focus:ring-2 focus:outline-none focus:ring-inset ${
            error ? "ring-red-400 focus:ring-red-500" : "ring-slate-300 focus:ring-indigo-600"
          }`,
      })}
      {error ? (
        <p id={messageId} className="mt-1.5 text-sm text-red-600">
          {error}
        </p>
      ) : hint ? (
        <p id={messageId} className="mt-1.5 text-sm text-slate-500">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

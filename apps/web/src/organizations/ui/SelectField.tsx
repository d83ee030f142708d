import { useId, type ReactNode, type SelectHTMLAttributes } from "react";

export interface SelectFieldProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, "id"> {
  label: string;
  error?: string;
  hint?: ReactNode;
  children: ReactNode;
}

export function SelectField({ label, error, hint, className = "", children, ...select }: SelectFieldProps) {
  const id = useId();
  const messageId = `${id}-message`;
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <select
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error || hint ? messageId : undefined}
        className={`mt-1.5 block w-full rounded-md border-0 bg-white py-2 pr-8 pl-3 text-sm text-slate-900 shadow-sm ring-1 ring-inset focus:ring-2 focus:outline-none focus:ring-inset disabled:bg-slate-50 disabled:text-slate-500 ${
          error ? "ring-red-400 focus:ring-red-500" : "ring-slate-300 focus:ring-indigo-600"
        }`}
        {...select}
      >
        {children}
      </select>
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

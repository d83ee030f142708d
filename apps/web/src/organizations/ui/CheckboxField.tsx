import { useId, type ReactNode } from "react";

export interface CheckboxFieldProps {
  label: ReactNode;
  description?: ReactNode;
  checked: boolean;
  disabled?: boolean;
  onChange(checked: boolean): void;
}

/** A labelled checkbox with an optional line of help below the label. */
export function CheckboxField({ label, description, checked, disabled, onChange }: CheckboxFieldProps) {
  const id = useId();
  return (
    <div className="flex items-start gap-3">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        aria-describedby={description ? `${id}-description` : undefined}
        onChange={(event) => onChange(event.target.checked)}
        className="mt-0.5 size-4 shrink-0 rounded border-slate-300 accent-indigo-600 disabled:cursor-not-allowed disabled:opacity-60"
      />
      <div className="min-w-0 text-sm">
        <label htmlFor={id} className="font-medium text-slate-800">
          {label}
        </label>
        {description ? (
          <p id={`${id}-description`} className="text-slate-500">
            {description}
          </p>
        ) : null}
      </div>
    </div>
  );
}

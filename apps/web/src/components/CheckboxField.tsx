import { useCheckField, type CheckFieldProps } from "./useCheckField";

/** A labelled checkbox with an optional line of help below the label. */
export function CheckboxField({ label, description, ...state }: CheckFieldProps) {
  const { input, descriptionId } = useCheckField({ description, ...state });
  return (
    <div className="flex items-start gap-3">
      <input {...input} className="mt-0.5 size-4 shrink-0 rounded border-slate-300 accent-indigo-600 disabled:cursor-not-allowed disabled:opacity-60" />
      <div className="min-w-0 text-sm">
        <label htmlFor={input.id} className="font-medium text-slate-800">
          {label}
        </label>
        {descriptionId ? (
          <p id={descriptionId} className="text-slate-500">
            {description}
          </p>
        ) : null}
      </div>
    </div>
  );
}

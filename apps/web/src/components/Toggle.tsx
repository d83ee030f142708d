import { useCheckField, type CheckFieldProps } from "./useCheckField";

/** A switch that is a real checkbox underneath, so labels, keyboard and screen readers just work. */
export function Toggle({ label, description, ...state }: CheckFieldProps) {
  const { input, descriptionId } = useCheckField({ description, ...state });
  return (
    <div className="flex items-start justify-between gap-4 py-3">
      <div className="min-w-0">
        <label htmlFor={input.id} className="text-sm font-medium text-slate-800">
          {label}
        </label>
        {descriptionId ? (
          <p id={descriptionId} className="text-sm text-slate-500">
            {description}
          </p>
        ) : null}
      </div>
      <span className="relative inline-flex shrink-0">
        <input
          {...input}
          role="switch"
          className={
            "peer h-6 w-11 cursor-pointer appearance-none rounded-full bg-slate-300 transition-colors " +
            "checked:bg-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 " +
            "focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-60"
          }
        />
        <span
          aria-hidden="true"
          className="pointer-events-none absolute top-0.5 left-0.5 size-5 rounded-full bg-white shadow transition-transform peer-checked:translate-x-5"
        />
      </span>
    </div>
  );
}

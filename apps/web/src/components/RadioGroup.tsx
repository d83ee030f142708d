import { useId } from "react";

/** One choice of a radio group: its name, and a sentence on what it means. */
export interface RadioChoice<Value extends string> {
  value: Value;
  label: string;
  description: string;
}

interface RadioGroupProps<Value extends string> {
  legend: string;
  /** For screen readers only, where a heading above already says what the group chooses. */
  legendHidden?: boolean;
  choices: ReadonlyArray<RadioChoice<Value>>;
  value: Value;
  onChange(value: Value): void;
  className?: string;
}

/**
 * A fieldset named by its legend, of native radios sharing one name: Tab reaches the group once, at the checked one, and the
 * arrow keys move between them and choose, as in any radio group. Each radio is named by its label alone and described by its
 * sentence, so the label is what a person (or a test) finds it by.
 */
export function RadioGroup<Value extends string>({ legend, legendHidden = false, choices, value, onChange, className = "" }: RadioGroupProps<Value>) {
  const name = useId();
  return (
    <fieldset className={`min-w-0 ${className}`}>
      <legend className={legendHidden ? "sr-only" : "text-sm font-medium text-slate-700"}>{legend}</legend>
      <div className={`flex flex-col gap-2 ${legendHidden ? "" : "mt-1.5"}`}>
        {choices.map((choice) => (
          <label key={choice.value} className="flex cursor-pointer items-start gap-3 text-sm">
            <input
              type="radio"
              name={name}
              value={choice.value}
              checked={value === choice.value}
              onChange={() => onChange(choice.value)}
              aria-labelledby={`${name}-${choice.value}-label`}
              aria-describedby={`${name}-${choice.value}`}
              className="mt-0.5 size-4 shrink-0 accent-indigo-600"
            />
            <span className="min-w-0">
              <span id={`${name}-${choice.value}-label`} className="block font-medium text-slate-800">
                {choice.label}
              </span>
              <span id={`${name}-${choice.value}`} className="block break-words text-slate-500">
                {choice.description}
              </span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

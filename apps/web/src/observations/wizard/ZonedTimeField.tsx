import { useId } from "react";
import { Field } from "../../components/Field";
import { zoneName } from "../../lib/time-display";
import { wallClockToIso } from "../../lib/zone-time";
import type { textProps } from "./step-props";

/**
 * A date and time (`datetime-local`) typed on the clocks of `zone`, the zone named beside it as every time names it
 * ("UTC+11") at the time typed, or now while there is none: across a change of the clocks the name follows the date.
 */
export function ZonedTimeField({
  zone,
  label,
  hint,
  required,
  error,
  ...input
}: ReturnType<typeof textProps> & { zone: string; label: string; hint: string; required?: boolean }) {
  const zoneId = useId();
  const typed = wallClockToIso(input.value, zone);
  return (
    <Field label={label} hint={hint} error={error}>
      {(control) => (
        <div className="flex items-center gap-2">
          <input
            {...control}
            aria-describedby={[control["aria-describedby"], zoneId].filter(Boolean).join(" ")}
            className={`${control.className} min-w-0 px-3 py-2`}
            type="datetime-local"
            required={required}
            {...input}
          />
          <span id={zoneId} className="mt-1.5 shrink-0 text-sm text-slate-600">
            {zoneName(zone, typed ? new Date(typed) : new Date())}
          </span>
        </div>
      )}
    </Field>
  );
}

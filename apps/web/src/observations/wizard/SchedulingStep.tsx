import { twilightKinds } from "@meridian/rules";
import { CheckboxField } from "../../components/CheckboxField";
import { SelectField } from "../../components/SelectField";
import { TextField } from "../../components/TextField";
import { windowOf } from "./draft";
import { MonitoringCadence } from "./MonitoringCadence";
import { textProps, type StepProps } from "./step-props";
import { TypePicker } from "./TypePicker";
import { ZonedTimeField } from "./ZonedTimeField";

/** The type and only the fields it needs, then priority and the sky constraints. */
export function SchedulingStep(props: StepProps) {
  const { draft, edit, errorOf, timeZone } = props;
  const window = windowOf[draft.type];
  return (
    <div className="flex flex-col gap-6">
      <TypePicker value={draft.type} error={errorOf("type")} onChange={(type) => edit("type", (current) => ({ ...current, type }))} />
      {window ? (
        <fieldset className="min-w-0">
          <legend className="text-sm font-medium text-slate-700">Time window</legend>
          <p className="text-sm text-slate-500">In {timeZone.words}.</p>
          <div className="mt-2 grid gap-4 sm:grid-cols-2">
            <ZonedTimeField
              label="Window start"
              zone={timeZone.zone}
              required={window.start === "required"}
              hint={window.start === "required" ? "Not before this time (required)." : "Not before this time. A start, an end or both."}
              {...textProps(props, "fixedTimeStart", draft.fixedTimeStart, (current, value) => ({ ...current, fixedTimeStart: value }))}
            />
            <ZonedTimeField
              label="Window end"
              zone={timeZone.zone}
              hint={window.start === "required" ? "Not after this time (optional)." : "Not after this time. A start, an end or both."}
              {...textProps(props, "fixedTimeEnd", draft.fixedTimeEnd, (current, value) => ({ ...current, fixedTimeEnd: value }))}
            />
          </div>
        </fieldset>
      ) : null}
      {draft.type === "monitoring" ? <MonitoringCadence {...props} /> : null}
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label="Priority"
          hint="1 to 10; 10 goes first."
          inputMode="numeric"
          {...textProps(props, "priority", draft.priority, (current, priority) => ({ ...current, priority }))}
        />
        <SelectField
          label="Darkness"
          value={draft.twilight}
          error={errorOf("constraints.twilight")}
          onChange={(event) => edit("constraints.twilight", (current) => ({ ...current, twilight: event.target.value as typeof current.twilight }))}
        >
          {twilightKinds.map((value) => (
            <option key={value} value={value}>
              After {value} twilight
            </option>
          ))}
        </SelectField>
        <TextField
          label="Minimum altitude (°)"
          inputMode="decimal"
          hint="0 to 90; 30 by default."
          {...textProps(props, "constraints.minAltitude", draft.minAltitude, (current, minAltitude) => ({ ...current, minAltitude }))}
        />
        <TextField
          label="Maximum airmass"
          inputMode="decimal"
          hint="Optional; 1 to 40."
          {...textProps(props, "constraints.maxAirmass", draft.maxAirmass, (current, maxAirmass) => ({ ...current, maxAirmass }))}
        />
        <TextField
          label="Moon distance (°)"
          inputMode="decimal"
          hint="Optional; at least this far from the Moon, 0 to 180."
          {...textProps(props, "constraints.moonDistance", draft.moonDistance, (current, moonDistance) => ({ ...current, moonDistance }))}
        />
      </div>
      <CheckboxField
        label="Observe in daylight or twilight too"
        description="Skips the darkness rule (for bright targets)."
        checked={draft.bypassDarkness}
        onChange={(bypassDarkness) => edit("bypassDarkness", (current) => ({ ...current, bypassDarkness }))}
      />
    </div>
  );
}

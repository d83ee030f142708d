import { useId } from "react";
import { canonicalTimeZone, fieldMessage, observatoryTimingBounds, TIME_ZONE_PREDICATE, type ObservatoryTiming } from "@meridian/rules";
import { TextField } from "../components/TextField";
import type { Observatory } from "./permissions";

/** Every zone this browser knows, for the zone field's suggestions (typing filters them). */
const knownZones = () => ["UTC", ...Intl.supportedValuesOf("timeZone")];

export interface TimeDraft {
  timeZone: string;
  slewSeconds: string;
  readoutSeconds: string;
}
type TimeUpdate = { timeZone?: string | null; settings?: Partial<ObservatoryTiming> };

export const timeDraftOf = (observatory: Observatory): TimeDraft => ({
  timeZone: observatory.timeZone,
  slewSeconds: String(observatory.settings.slewSeconds),
  readoutSeconds: String(observatory.settings.readoutSeconds),
});
export const timeErrorPaths = ["timeZone", "settings.slewSeconds", "settings.readoutSeconds"];

const labels = { slewSeconds: "Slew time (s)", readoutSeconds: "Readout time (s)" } as const;

/**
 * The zone and timing part of a settings change, or the field errors (in the API's words for the
 * zone). An empty zone asks the server to derive it from the location; a zone left as it was, when
 * it was the location's, is not sent, so a moved location brings its own zone (contract, "Time and duration").
 */
export function parseTimeDraft(draft: TimeDraft, observatory: Observatory): { update: TimeUpdate; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const update: TimeUpdate = {};
  const zone = draft.timeZone.trim();
  const derivedUntouched = zone === observatory.timeZone && observatory.timeZone === observatory.locationTimeZone;
  if (zone === "") update.timeZone = null;
  else if (!canonicalTimeZone(zone)) errors.timeZone = fieldMessage(["timeZone"], TIME_ZONE_PREDICATE);
  else if (!derivedUntouched) update.timeZone = zone;
  const settings: Partial<ObservatoryTiming> = {};
  for (const key of ["slewSeconds", "readoutSeconds"] as const) {
    const text = draft[key].trim();
    const value = Number(text);
    const { min, max } = observatoryTimingBounds[key];
    if (text === "" || !Number.isFinite(value)) errors[`settings.${key}`] = `${labels[key]} must be a number.`;
    else if (value < min || value > max) errors[`settings.${key}`] = `${labels[key]} must be between ${min} and ${max}.`;
    else if (value !== observatory.settings[key]) settings[key] = value;
  }
  if (Object.keys(settings).length > 0) update.settings = settings;
  return { update, errors };
}

/** The observatory's time zone (suggestions from every zone this browser knows) and what its estimates assume. */
export function TimeFieldset({
  draft,
  onChange,
  errors,
  observatory,
}: {
  draft: TimeDraft;
  onChange(draft: TimeDraft): void;
  errors: Record<string, string | undefined>;
  observatory: Observatory;
}) {
  const listId = useId();
  const zoneProblem = draft.timeZone.trim() !== "" && !canonicalTimeZone(draft.timeZone.trim()) ? fieldMessage(["timeZone"], TIME_ZONE_PREDICATE) : undefined;
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-700">Time</legend>
      <div className="mt-2 grid gap-3 sm:grid-cols-3">
        <TextField
          label="Time zone"
          name="timeZone"
          list={listId}
          autoComplete="off"
          spellCheck={false}
          className="sm:col-span-3"
          value={draft.timeZone}
          onChange={(e) => onChange({ ...draft, timeZone: e.target.value })}
          error={zoneProblem ?? errors.timeZone}
          hint={
            `An IANA name such as Atlantic/Canary. Empty: from the location (now ${observatory.locationTimeZone}); ` +
            "a new location brings its own zone unless you choose one here."
          }
        />
        <datalist id={listId}>
          {knownZones().map((zone) => (
            <option key={zone} value={zone} />
          ))}
        </datalist>
        {(["slewSeconds", "readoutSeconds"] as const).map((key) => (
          <TextField
            key={key}
            label={labels[key]}
            name={key}
            type="number"
            inputMode="decimal"
            step="any"
            min={observatoryTimingBounds[key].min}
            max={observatoryTimingBounds[key].max}
            value={draft[key]}
            onChange={(e) => onChange({ ...draft, [key]: e.target.value })}
            error={errors[`settings.${key}`]}
            hint={key === "slewSeconds" ? "Per target, for estimates; 0 to 3600, 120 by default." : "Per exposure, for estimates; 0 to 600, 10 by default."}
          />
        ))}
      </div>
    </fieldset>
  );
}

import { fieldMessage, parseGeographicDegrees } from "@meridian/rules";
import { TextField } from "../components/TextField";

/** Latitude and longitude are angles, written as a target's declination is: degrees, or degrees, minutes and seconds. */
const locationFields = [
  { key: "latitude", label: "Latitude", hint: "−90 to 90°: 28.76, -30:31:36 or -30° 31′ 36″", min: -90, max: 90, angle: true },
  { key: "longitude", label: "Longitude", hint: "−180 to 180°: -17.88, -70 44 12 or -70° 44′ 12″", min: -180, max: 180, angle: true },
  { key: "elevation", label: "Elevation (m)", hint: "Metres above sea level", min: -500, max: 10_000, angle: false },
] as const;
type LocationKey = (typeof locationFields)[number]["key"];
export type LocationDraft = Record<LocationKey, string>;
export type Location = Record<LocationKey, number>;

export const emptyLocation: LocationDraft = { latitude: "", longitude: "", elevation: "" };
export const locationDraftOf = (location: Location | undefined): LocationDraft =>
  location ? { latitude: String(location.latitude), longitude: String(location.longitude), elevation: String(location.elevation) } : emptyLocation;
export const locationErrorPaths = locationFields.map((field) => `location.${field.key}`);

/** All three values, none (null), or the field errors that say what is missing or out of range. */
function parseLocation(draft: LocationDraft): { location: Location | null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (locationFields.every((field) => draft[field.key].trim() === "")) return { location: null, errors };
  const numbers: Partial<Location> = {};
  for (const field of locationFields) {
    const raw = draft[field.key].trim();
    const path = ["location", field.key];
    const angle = field.angle ? parseGeographicDegrees(raw, { path, axis: field.key }) : null;
    const value = angle ? (angle.ok ? angle.degrees : Number.NaN) : Number(raw);
    if (!raw) errors[`location.${field.key}`] = "Enter all three values, or none.";
    else if (angle && !angle.ok) errors[`location.${field.key}`] = angle.message;
    else if (!Number.isFinite(value)) errors[`location.${field.key}`] = "Enter a number.";
    // The API's bounds, in its words, before a round trip to hear them.
    else if (value < field.min) errors[`location.${field.key}`] = fieldMessage(path, `must be at least ${field.min.toLocaleString("en-US")}`);
    else if (value > field.max) errors[`location.${field.key}`] = fieldMessage(path, `must be at most ${field.max.toLocaleString("en-US")}`);
    else numbers[field.key] = value;
  }
  return { location: Object.keys(errors).length ? null : (numbers as Location), errors };
}

/** The checks both observatory forms make before sending: a name, and a whole location or none. */
export function checkObservatoryFields(name: string, draft: LocationDraft): { location: Location | null; errors: Record<string, string> } {
  const parsed = parseLocation(draft);
  return { location: parsed.location, errors: { ...(name.trim() ? {} : { name: "Give the observatory a name." }), ...parsed.errors } };
}

export function LocationFieldset({
  draft,
  onChange,
  errors,
  optional = true,
}: {
  draft: LocationDraft;
  onChange(draft: LocationDraft): void;
  errors: Record<string, string | undefined>;
  optional?: boolean;
}) {
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-700">
        Location {optional ? <span className="font-normal text-slate-500">(optional; leave all three empty for none)</span> : null}
      </legend>
      <div className="mt-2 grid gap-3 sm:grid-cols-3">
        {locationFields.map((field) => (
          <TextField
            key={field.key}
            label={field.label}
            // A number input would drop the colons, spaces and symbols of -30:31:36 and keep -303136.
            {...(field.angle
              ? { type: "text", autoComplete: "off", spellCheck: false }
              : { type: "number", inputMode: "decimal" as const, step: "any", min: field.min, max: field.max })}
            value={draft[field.key]}
            onChange={(e) => onChange({ ...draft, [field.key]: e.target.value })}
            error={errors[`location.${field.key}`]}
            hint={field.hint}
          />
        ))}
      </div>
    </fieldset>
  );
}

import {
  DECLINATION_FORMAT,
  formatDeclination,
  formatDeclinationDegrees,
  formatRightAscension,
  formatRightAscensionDegrees,
  parseDeclination,
  parseRightAscension,
  RIGHT_ASCENSION_FORMAT,
} from "@meridian/rules";
import { TextField } from "../../components/TextField";

const axes = {
  ra: {
    label: "Right ascension (RA)",
    placeholder: "08:40:24",
    format: RIGHT_ASCENSION_FORMAT,
    parse: parseRightAscension,
    // Seconds of time to two decimals (0.15″) and degrees to six: both finer than any catalog position here.
    show: (degrees: number) => `${formatRightAscension(degrees, { decimals: 2 })} = ${formatRightAscensionDegrees(degrees)}`,
  },
  dec: {
    label: "Declination (Dec)",
    placeholder: "+19:40:12",
    format: DECLINATION_FORMAT,
    parse: parseDeclination,
    show: (degrees: number) => `${formatDeclination(degrees, { decimals: 1 })} = ${formatDeclinationDegrees(degrees)}`,
  },
};

/** The value as typed, read back in both forms (sexagesimal and degrees) once it parses; the API's sentence once it is wrong. */
export function CoordinateField({
  axis,
  value,
  error,
  onChange,
  onBlur,
}: {
  axis: keyof typeof axes;
  value: string;
  error?: string;
  onChange(value: string): void;
  onBlur(): void;
}) {
  const { label, placeholder, format, parse, show } = axes[axis];
  const parsed = value.trim() ? parse(value) : null;
  const hint = parsed?.ok ? show(parsed.degrees) : `${format.charAt(0).toUpperCase()}${format.slice(1)}`;
  return (
    <TextField
      label={label}
      required
      autoComplete="off"
      spellCheck={false}
      placeholder={placeholder}
      value={value}
      error={error}
      hint={hint}
      onChange={(event) => onChange(event.target.value)}
      onBlur={onBlur}
    />
  );
}

/** A catalog position as the fields show it once filled in: sexagesimal, which reads back exactly. */
export const coordinateText = {
  ra: (degrees: number) => formatRightAscension(degrees, { decimals: 2 }),
  dec: (degrees: number) => formatDeclination(degrees, { decimals: 1 }),
};

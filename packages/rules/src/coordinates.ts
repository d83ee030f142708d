import { fieldMessage } from "./validation-messages";

/**
 * Right ascension and declination as people write them, for the submission wizard (as the user
 * types) and the server alike. Both come back in degrees, as docs/api-contract.md stores them: right
 * ascension 0 ≤ ra < 360, declination −90 ≤ dec ≤ 90 (J2000 is the caller's business).
 *
 * Accepted: sexagesimal with colons (`08:40:24`, `+19:40:12`), with spaces (`08 40 24`), with unit
 * letters or symbols (`8h 40m 24.5s`, `19d40m12s`, `-05°23'28"`, `19° 40′ 12″`), with two or three
 * parts (`8:40.5` is 8h 40.5m); only the last part may carry decimals. A lone number is degrees,
 * for right ascension too (`130.1`, `130.1°`). The sign belongs to the whole angle, so `-00:30:00`
 * is −0.5°.
 */

/** A parsed angle in degrees, or the sentence that says what is wrong with the text. */
export type AngleResult = { ok: true; degrees: number } | { ok: false; message: string };

interface ParseOptions {
  /** Where the value sits in the request, for the label of the message (default `["ra"]` / `["dec"]`). */
  path?: ReadonlyArray<PropertyKey>;
}

export const RIGHT_ASCENSION_FORMAT = "hours, minutes and seconds such as 08:40:24 or 8h 40m 24s, or degrees such as 130.1";
export const DECLINATION_FORMAT = "degrees, minutes and seconds such as +19:40:12 or 19° 40′ 12″, or degrees such as 19.67";

const NUMBER = String.raw`(?:\d+(?:\.\d*)?|\.\d+)`;
const PLAIN_DEGREES = new RegExp(String.raw`^(${NUMBER})\s*(?:°|deg|d)?$`);
const SEPARATED = new RegExp(String.raw`^${NUMBER}(?:(?:\s*:\s*|\s+)${NUMBER}){1,2}$`);
const RA_UNITS = new RegExp(String.raw`^(${NUMBER})\s*h\s*(?:(${NUMBER})\s*m\s*)?(?:(${NUMBER})\s*s)?$`);
const DEC_UNITS = new RegExp(String.raw`^(${NUMBER})\s*(?:°|deg|d)\s*(?:(${NUMBER})\s*(?:'|m)\s*)?(?:(${NUMBER})\s*(?:"|s))?$`);

/** Typography people paste from papers and planetarium programs, down to the ASCII the patterns read. */
function normalize(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\u2212\u2012\u2013\u2014\ufe63\uff0d]/g, "-")
    .replace(/[\u2032\u2019\u2018\u02b9\u00b4`]/g, "'")
    .replace(/[\u2033\u201d\u201c\u02ba]|''/g, '"')
    .replace(/[\u00ba\u02da]/g, "°")
    .replace(/\u02b0/g, "h")
    .replace(/\u1d50/g, "m")
    .replace(/\u02e2/g, "s")
    .replace(/,/g, ".");
}

type Parts = { sign: 1 | -1; parts: string[]; plainDegrees: boolean } | null;

function split(text: string, units: RegExp): Parts {
  const match = /^([+-]?)\s*([\s\S]*)$/.exec(text)!;
  const sign = match[1] === "-" ? -1 : 1;
  const body = match[2]!;
  const plain = PLAIN_DEGREES.exec(body);
  if (plain) return { sign, parts: [plain[1]!], plainDegrees: true };
  if (SEPARATED.test(body)) return { sign, parts: body.split(/\s*:\s*|\s+/), plainDegrees: false };
  const unit = units.exec(body);
  if (!unit) return null;
  // `8h 24s` skips the minutes: a missing part in the middle is zero, missing parts at the end are absent.
  const groups = unit.slice(1);
  while (groups.at(-1) === undefined) groups.pop();
  return { sign, parts: groups.map((part) => part ?? "0"), plainDegrees: false };
}

type Sexagesimal = { ok: true; value: number } | { ok: false; predicate: string };

/** Whole units, minutes and seconds (the last part may have decimals) into units, checking 0 ≤ minutes, seconds < 60. */
function sexagesimal(parts: string[]): Sexagesimal {
  const numbers = parts.map(Number);
  if (parts.slice(0, -1).some((part) => part.includes("."))) return { ok: false, predicate: "may have decimals only in its last part" };
  if (numbers.some((value) => !Number.isFinite(value))) return { ok: false, predicate: "is not a number" };
  const [units, minutes = 0, seconds = 0] = numbers as [number, number?, number?];
  if (minutes >= 60) return { ok: false, predicate: "must have minutes below 60" };
  if (seconds >= 60) return { ok: false, predicate: "must have seconds below 60" };
  return { ok: true, value: units + minutes / 60 + seconds / 3600 };
}

const fail = (path: ReadonlyArray<PropertyKey>, predicate: string): AngleResult => ({ ok: false, message: fieldMessage(path, predicate) });

/** Right ascension in degrees (0 ≤ ra < 360) from hours, minutes and seconds or from degrees. */
export function parseRightAscension(text: string, options: ParseOptions = {}): AngleResult {
  const path = options.path ?? ["ra"];
  const input = normalize(text);
  if (input === "") return fail(path, "is required");
  const parsed = split(input, RA_UNITS);
  if (!parsed) return fail(path, `must be ${RIGHT_ASCENSION_FORMAT}`);
  if (parsed.sign === -1) return fail(path, "must not be negative");
  if (parsed.plainDegrees) {
    const degrees = Number(parsed.parts[0]);
    if (!Number.isFinite(degrees)) return fail(path, `must be ${RIGHT_ASCENSION_FORMAT}`);
    if (degrees >= 360) return fail(path, "must be less than 360°");
    return { ok: true, degrees };
  }
  const hours = sexagesimal(parsed.parts);
  if (!hours.ok) return fail(path, hours.predicate);
  if (hours.value >= 24) return fail(path, "must be less than 24h");
  return { ok: true, degrees: hours.value * 15 };
}

/** A signed angle in degrees from degrees, minutes and seconds or from degrees; `format` says what is accepted when the text is neither. */
function signedDegrees(text: string, path: ReadonlyArray<PropertyKey>, format: string): AngleResult {
  const input = normalize(text);
  if (input === "") return fail(path, "is required");
  const parsed = split(input, DEC_UNITS);
  if (!parsed) return fail(path, `must be ${format}`);
  const magnitude = parsed.plainDegrees ? { ok: true as const, value: Number(parsed.parts[0]) } : sexagesimal(parsed.parts);
  if (!magnitude.ok) return fail(path, magnitude.predicate);
  if (!Number.isFinite(magnitude.value)) return fail(path, `must be ${format}`);
  // The sign applies to the whole angle: −00:30:00 is −0.5°, not −0 + 0.5.
  return { ok: true, degrees: magnitude.value === 0 ? 0 : parsed.sign * magnitude.value };
}

/** Declination in degrees (−90 ≤ dec ≤ 90) from degrees, minutes and seconds or from degrees. */
export function parseDeclination(text: string, options: ParseOptions = {}): AngleResult {
  const path = options.path ?? ["dec"];
  const result = signedDegrees(text, path, DECLINATION_FORMAT);
  if (result.ok && Math.abs(result.degrees) > 90) return fail(path, "must be between -90° and +90°");
  return result;
}

const LATITUDE_FORMAT = "degrees such as -30.5267, or degrees, minutes and seconds such as -30:31:36, -30 31 36 or -30° 31′ 36″";
const LONGITUDE_FORMAT = "degrees such as -70.7367, or degrees, minutes and seconds such as -70:44:12, -70 44 12 or -70° 44′ 12″";

/**
 * An observatory's latitude or longitude in degrees, written as a declination is (a sign, then degrees,
 * or degrees, minutes and seconds). The range is the caller's to check, in the API's words.
 */
export function parseGeographicDegrees(text: string, options: { path: ReadonlyArray<PropertyKey>; axis: "latitude" | "longitude" }): AngleResult {
  return signedDegrees(text, options.path, options.axis === "latitude" ? LATITUDE_FORMAT : LONGITUDE_FORMAT);
}

interface FormatOptions {
  /** Decimals of the last part: seconds for the sexagesimal forms, degrees for `unit: "degrees"`. */
  decimals?: number;
}

/** Units, minutes and seconds of a non-negative amount, rounded once at the given decimals so carries are right. */
function toParts(amount: number, decimals: number): [number, number, string] {
  const scale = 10 ** decimals;
  const total = Math.round(amount * 3600 * scale);
  const secondsScaled = total % (60 * scale);
  const wholeMinutes = (total - secondsScaled) / (60 * scale);
  const seconds = (secondsScaled / scale).toFixed(decimals).padStart(decimals > 0 ? decimals + 3 : 2, "0");
  return [Math.floor(wholeMinutes / 60), wholeMinutes % 60, seconds];
}

const two = (value: number) => String(value).padStart(2, "0");

function checkedDecimals(decimals: number): number {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 9) throw new RangeError("decimals must be a whole number from 0 to 9");
  return decimals;
}

/** A right ascension in degrees as `08h 40m 24.0s` (one decimal of a second unless told). */
export function formatRightAscension(degrees: number, options: FormatOptions = {}): string {
  if (!Number.isFinite(degrees)) throw new RangeError("right ascension must be a finite number");
  const decimals = checkedDecimals(options.decimals ?? 1);
  const [hours, minutes, seconds] = toParts((((degrees % 360) + 360) % 360) / 15, decimals);
  return `${two(hours % 24)}h ${two(minutes)}m ${seconds}s`;
}

/** A right ascension in degrees as `130.100000°` (six decimals unless told), always within 0 ≤ ra < 360. */
export function formatRightAscensionDegrees(degrees: number, options: FormatOptions = {}): string {
  if (!Number.isFinite(degrees)) throw new RangeError("right ascension must be a finite number");
  const decimals = checkedDecimals(options.decimals ?? 6);
  const text = ((((degrees % 360) + 360) % 360) + 0).toFixed(decimals);
  return `${Number(text) >= 360 ? (0).toFixed(decimals) : text}°`;
}

function checkedDeclination(degrees: number): number {
  if (!Number.isFinite(degrees) || Math.abs(degrees) > 90) throw new RangeError("declination must be a number from -90 to 90");
  return degrees;
}

/** A declination in degrees as `+19° 40′ 12″` (whole seconds unless told). */
export function formatDeclination(degrees: number, options: FormatOptions = {}): string {
  checkedDeclination(degrees);
  const decimals = checkedDecimals(options.decimals ?? 0);
  const [whole, minutes, seconds] = toParts(Math.abs(degrees), decimals);
  const zero = whole === 0 && minutes === 0 && Number(seconds) === 0;
  return `${degrees < 0 && !zero ? "-" : "+"}${two(whole)}° ${two(minutes)}′ ${seconds}″`;
}

/** A declination in degrees as `+19.670000°` (six decimals unless told), signed. */
export function formatDeclinationDegrees(degrees: number, options: FormatOptions = {}): string {
  checkedDeclination(degrees);
  const decimals = checkedDecimals(options.decimals ?? 6);
  const text = Math.abs(degrees).toFixed(decimals);
  return `${degrees < 0 && Number(text) !== 0 ? "-" : "+"}${text}°`;
}

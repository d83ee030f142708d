import { parseDeclination, parseRightAscension } from "@meridian/rules";

/** The contract's bound of a cone search (`radius` ≤ 10 degrees), and how the form says it. */
const MAX_RADIUS_DEGREES = 10;
const RADIUS_BOUND = `${MAX_RADIUS_DEGREES}° (${MAX_RADIUS_DEGREES * 60}′)`;

export type RadiusUnit = "arcmin" | "deg";
export const frameGradeChoices = ["accepted", "rejected"] as const;
export type FrameGradeChoice = (typeof frameGradeChoices)[number];

/**
 * What the Frames page searches for, all of it in the URL's query so a search can be shared and
 * reloaded: `target` (the name the position came from, shown only), `ra` and `dec` as typed
 * (sexagesimal or degrees), `radius` with its `unit`, `filter`, `from` and `to` (UTC days of
 * `DATE-OBS`, both included), `grade`, `observatoryId` and `projectId`.
 */
export interface FrameSearchView {
  target: string;
  ra: string;
  dec: string;
  radius: string;
  unit: RadiusUnit;
  filter: string;
  from: string;
  to: string;
  grade: FrameGradeChoice | "";
  observatoryId: string;
  projectId: string;
}

/** The `frames.search` input the view asks for (the page adds `limit` and `cursor`). */
export interface FrameSearchInput {
  ra?: number;
  dec?: number;
  radius?: number;
  filter?: string;
  from?: string;
  to?: string;
  grade?: FrameGradeChoice;
  observatoryId?: string;
  projectId?: string;
}

export type FrameSearchField = "target" | "ra" | "dec" | "radius" | "from" | "to";
export type FrameSearchErrors = Partial<Record<FrameSearchField, string>>;

const DEFAULT_RADIUS = { radius: "30", unit: "arcmin" as RadiusUnit };

export const emptyFrameSearch: FrameSearchView = {
  target: "",
  ra: "",
  dec: "",
  ...DEFAULT_RADIUS,
  filter: "",
  from: "",
  to: "",
  grade: "",
  observatoryId: "",
  projectId: "",
};

const isDay = (value: string | null): value is string => value !== null && /^\d{4}-\d\d-\d\d$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
const textKeys = ["target", "ra", "dec", "filter", "observatoryId", "projectId"] as const;

export function frameSearchOf(params: URLSearchParams): FrameSearchView {
  const view: FrameSearchView = { ...emptyFrameSearch };
  for (const key of textKeys) view[key] = params.get(key) ?? "";
  view.radius = params.get("radius") ?? DEFAULT_RADIUS.radius;
  view.unit = params.get("unit") === "deg" ? "deg" : "arcmin";
  view.from = isDay(params.get("from")) ? params.get("from")! : "";
  view.to = isDay(params.get("to")) ? params.get("to")! : "";
  const grade = params.get("grade");
  view.grade = (frameGradeChoices as readonly string[]).includes(grade ?? "") ? (grade as FrameGradeChoice) : "";
  return view;
}

export const hasPosition = (view: FrameSearchView) => view.ra.trim() !== "" || view.dec.trim() !== "";

/** The URL query of a search: only what is set, the radius only with a position, in a stable order. */
export function frameSearchParams(view: FrameSearchView): URLSearchParams {
  const params = new URLSearchParams();
  const position = hasPosition(view);
  if (position && view.target.trim()) params.set("target", view.target.trim());
  if (position) {
    params.set("ra", view.ra.trim());
    params.set("dec", view.dec.trim());
    params.set("radius", view.radius.trim());
    params.set("unit", view.unit);
  }
  if (view.filter.trim()) params.set("filter", view.filter.trim());
  for (const key of ["from", "to", "grade", "observatoryId", "projectId"] as const) if (view[key]) params.set(key, view[key]);
  return params;
}

/** A radius as typed, in degrees: more than 0 and at most 10°, or the sentence that says what is wrong. */
export function parseRadius(text: string, unit: RadiusUnit): { ok: true; degrees: number } | { ok: false; message: string } {
  const typed = text.trim().replace(",", ".");
  if (typed === "") return { ok: false, message: `Enter a radius around the position, at most ${RADIUS_BOUND}.` };
  const value = /^(\d+(\.\d*)?|\.\d+)$/.test(typed) ? Number(typed) : Number.NaN;
  if (!Number.isFinite(value)) return { ok: false, message: `Radius must be a number, such as 30 or 0.5.` };
  if (value <= 0) return { ok: false, message: "Radius must be more than 0." };
  const degrees = unit === "arcmin" ? value / 60 : value;
  if (degrees > MAX_RADIUS_DEGREES) return { ok: false, message: `Radius must be at most ${RADIUS_BOUND}.` };
  return { ok: true, degrees };
}

/** The first instant of a UTC day, `days` later. */
const utcDayStart = (day: string, days = 0) => new Date(Date.parse(`${day}T00:00:00.000Z`) + days * 86_400_000).toISOString();

/**
 * The search's API input, or what is wrong with each field. A position needs both RA and Dec and a
 * radius; without one the frames are found by the filters alone. The days are UTC and both included:
 * `to` is sent as the start of the day after (the API's `to` is exclusive, as the other lists').
 */
export function frameSearchInput(view: FrameSearchView): { input: FrameSearchInput; errors: FrameSearchErrors } {
  const errors: FrameSearchErrors = {};
  const input: FrameSearchInput = {};
  if (hasPosition(view)) {
    const ra = parseRightAscension(view.ra);
    const dec = parseDeclination(view.dec);
    const radius = parseRadius(view.radius, view.unit);
    if (ra.ok) input.ra = ra.degrees;
    else errors.ra = ra.message;
    if (dec.ok) input.dec = dec.degrees;
    else errors.dec = dec.message;
    if (radius.ok) input.radius = radius.degrees;
    else errors.radius = radius.message;
  }
  if (view.filter.trim()) input.filter = view.filter.trim();
  if (view.from) input.from = utcDayStart(view.from);
  if (view.to) input.to = utcDayStart(view.to, 1);
  if (view.from && view.to && view.to < view.from) errors.to = "The last day must be on or after the first.";
  if (view.grade) input.grade = view.grade;
  if (view.observatoryId) input.observatoryId = view.observatoryId;
  if (view.projectId) input.projectId = view.projectId;
  return { input, errors };
}

/** Whether a search narrows the frames at all (else it lists every frame the reader may see). */
export const isNarrowed = (view: FrameSearchView) => frameSearchParams(view).size > 0;

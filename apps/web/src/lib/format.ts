const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const sameYear = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
const sameYearDate = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const otherYearDate = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" });
const otherYear = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });

export function formatDateTime(iso: string | null | undefined, fallback = "—"): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? fallback : dateTime.format(date);
}

/** In the year shown by `sameYearFormat` when it is this one, else by `otherYearFormat`. */
function formatShort(iso: string | null | undefined, fallback: string, sameYearFormat: Intl.DateTimeFormat, otherYearFormat: Intl.DateTimeFormat): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return fallback;
  return (date.getFullYear() === new Date().getFullYear() ? sameYearFormat : otherYearFormat).format(date);
}

/** For narrow table cells: the year only when it is not this one. */
export const formatShortDateTime = (iso: string | null | undefined, fallback = "—") => formatShort(iso, fallback, sameYear, otherYear);

/** A day without its time, for narrow cells: the year only when it is not this one. */
export const formatShortDate = (iso: string | null | undefined, fallback = "—") => formatShort(iso, fallback, sameYearDate, otherYearDate);

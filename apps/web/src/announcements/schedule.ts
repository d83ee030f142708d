/**
 * A `datetime-local` value, read in the user's time zone, as an ISO instant: null when blank,
 * undefined when it is no date at all.
 */
export function localInputToIso(value: string): string | null | undefined {
  if (!value.trim()) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

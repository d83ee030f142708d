import { TextField } from "../TextField";

/** True when `typed` is one of `accepted` (emails compare case-insensitively, names exactly; both trimmed). */
export function isConfirmed(typed: string, accepted: ReadonlyArray<string | undefined>): boolean {
  const value = typed.trim();
  return (
    value !== "" &&
    accepted.some(
      (candidate) => candidate !== undefined && (candidate === value || (candidate.includes("@") && candidate.toLowerCase() === value.toLowerCase())),
    )
  );
}

/**
 * GitHub-style guard for an act that cannot be taken back: the person types the name or email of
 * what they chose before the button enables, so a slip in a list cannot hand an observatory away.
 */
export function TypeToConfirm({
  what,
  accepted,
  value,
  onChange,
}: {
  what: string;
  accepted: ReadonlyArray<string | undefined>;
  value: string;
  onChange(value: string): void;
}) {
  const shown = accepted.filter((candidate): candidate is string => Boolean(candidate));
  if (shown.length === 0) return null;
  return (
    <TextField
      label={`Type ${what} to confirm`}
      autoComplete="off"
      spellCheck={false}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      hint={
        <>
          Type{" "}
          {shown.map((candidate, index) => (
            <span key={candidate}>
              {index > 0 ? " or " : null}
              <strong className="font-semibold text-slate-700">{candidate}</strong>
            </span>
          ))}
          .
        </>
      }
    />
  );
}

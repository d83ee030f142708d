/** Hours used against hours allocated, as a bar and in words; without an allocation, the hours alone. */
export function UsageBar({ label, usedHours, allocatedHours }: { label: string; usedHours: number; allocatedHours: number | null }) {
  if (allocatedHours === null) return <span className="text-sm text-slate-700">{formatHours(usedHours)} used · unlimited</span>;
  const share = allocatedHours > 0 ? Math.min(1, usedHours / allocatedHours) : 1;
  const over = usedHours > allocatedHours;
  const tone = over ? "bg-red-500" : share >= 0.9 ? "bg-amber-500" : "bg-indigo-500";
  return (
    <div className="flex min-w-40 flex-col gap-1">
      <div
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={allocatedHours}
        aria-valuenow={usedHours}
        aria-valuetext={`${formatHours(usedHours)} of ${formatHours(allocatedHours)}`}
        className="h-2 w-full overflow-hidden rounded-full bg-slate-100"
      >
        <div className={`h-full rounded-full ${tone}`} style={{ width: `${Math.round(share * 100)}%` }} />
      </div>
      <span className={`text-xs ${over ? "text-red-700" : "text-slate-600"}`}>
        {formatHours(usedHours)} of {formatHours(allocatedHours)}
        {over ? " (over)" : ""}
      </span>
    </div>
  );
}

export const formatHours = (hours: number) => `${hours.toLocaleString(undefined, { maximumFractionDigits: 2 })} h`;

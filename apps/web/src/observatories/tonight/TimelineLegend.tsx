import { skyColors, skyLabels, type SkyKind } from "./night-plan";

const swatch = "inline-block size-3 shrink-0 rounded-sm";

/** What the timeline's colours mean. */
export function TimelineLegend({ showsNow }: { showsNow: boolean }) {
  return (
    <ul aria-label="Legend" className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600">
      <li className="flex items-center gap-1.5">
        <span aria-hidden="true" className={`${swatch} bg-indigo-500`} />
        Planned
      </li>
      <li className="flex items-center gap-1.5">
        <span aria-hidden="true" className={`${swatch} bg-sky-600`} />
        Assigned or running
      </li>
      {(Object.keys(skyColors) as SkyKind[]).map((kind) => (
        <li key={kind} className="flex items-center gap-1.5">
          <span aria-hidden="true" className={swatch} style={{ background: skyColors[kind] }} />
          {skyLabels[kind]}
        </li>
      ))}
      <li className="flex items-center gap-1.5">
        <span aria-hidden="true" className={`${swatch} bg-amber-300`} />
        Moon up
      </li>
      {showsNow ? (
        <li className="flex items-center gap-1.5">
          <span aria-hidden="true" className="inline-block h-3 w-0.5 bg-red-600" />
          Now
        </li>
      ) : null}
    </ul>
  );
}

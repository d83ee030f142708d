import { useId } from "react";
import { Link } from "react-router-dom";
import { useElementWidth } from "../../lib/useElementWidth";
import { curveColors, GUTTER, hourTicks, nightScale, RIGHT_PAD, type AltitudeCurve, type PlanNight } from "./night-plan";
import { SkyBands } from "./SkyBands";
import { curveSubject, type CurveTarget } from "./curve-subject";

const TOP = 8;
const PLOT = 180;
const AXIS = 20;
const GRID = [0, 30, 60, 90];

export interface ChartCurve {
  curve: AltitudeCurve;
  name: string;
  /** The target the curve follows: the plan samples an observation's first target alone. */
  target: CurveTarget;
  /** The slot the observation has this night, drawn heavier on its curve. */
  slot: { start: string; end: string } | null;
}

type Point = AltitudeCurve["points"][number];

/** The curve while the slot runs: the samples inside it, and its ends read off the curve between samples. */
function slotPart(points: Point[], startMs: number, endMs: number): Point[] {
  const altitudeAt = (ms: number) => {
    const after = points.findIndex((point) => Date.parse(point.at) >= ms);
    if (after === -1) return points.at(-1)?.altitude ?? 0;
    if (after === 0) return points[0]!.altitude;
    const [a, b] = [points[after - 1]!, points[after]!];
    const [ta, tb] = [Date.parse(a.at), Date.parse(b.at)];
    return a.altitude + ((b.altitude - a.altitude) * (ms - ta)) / (tb - ta);
  };
  const inside = points.filter((point) => Date.parse(point.at) > startMs && Date.parse(point.at) < endMs);
  const end = (ms: number) => ({ at: new Date(ms).toISOString(), altitude: altitudeAt(ms) });
  return [end(startMs), ...inside, end(endMs)];
}

/** Below the horizon a curve runs on under the plot, where the clip hides it, instead of along its floor. */
const altitudeY = (altitude: number) => TOP + ((90 - Math.min(Math.max(altitude, -10), 90)) / 90) * PLOT;

/**
 * The altitude of each observation's first target (the plan samples no other) from sunset to
 * sunrise against its minimum altitude, over the night's twilight: the hovered or focused
 * observation's curve stands out. The legend below names every curve, says which target it
 * follows, and links to its observation; the plan's table says the same in words.
 */
export function AltitudeChart({
  night,
  zone,
  curves,
  highlighted,
  onHighlight,
}: {
  night: PlanNight;
  zone: string;
  curves: ChartCurve[];
  highlighted: string | null;
  onHighlight(observationId: string | null): void;
}) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const clipId = useId();
  const height = TOP + PLOT + AXIS;
  const scale = nightScale(night, width);
  const minimums = [...new Set(curves.map((entry) => entry.curve.minAltitude))];
  const litMinimum = curves.find((entry) => entry.curve.observationId === highlighted)?.curve.minAltitude;
  const path = (points: AltitudeCurve["points"]) =>
    points.map((point, index) => `${index === 0 ? "M" : "L"} ${scale.x(point.at)} ${altitudeY(point.altitude)}`).join(" ");
  return (
    <div className="flex flex-col gap-3">
      <div ref={ref} className="w-full">
        {width > 0 ? (
          <svg
            width={width}
            height={height}
            role="img"
            aria-label="Altitude of each observation's first target over the night, against its minimum altitude"
            className="block"
          >
            <defs>
              <clipPath id={clipId}>
                <rect x={GUTTER} y={TOP} width={width - GUTTER - RIGHT_PAD} height={PLOT} />
              </clipPath>
            </defs>
            <SkyBands night={night} scale={scale} y={TOP} height={PLOT} opacity={0.12} />
            {GRID.map((altitude) => (
              <g key={altitude}>
                <line x1={GUTTER} x2={width - RIGHT_PAD} y1={altitudeY(altitude)} y2={altitudeY(altitude)} className="stroke-slate-200" />
                <text x={GUTTER - 6} y={altitudeY(altitude) + 4} textAnchor="end" className="fill-slate-500 text-[11px]">
                  {altitude}°
                </text>
              </g>
            ))}
            {hourTicks(night, zone, width).map((tick) => (
              <text key={tick.at} x={scale.x(tick.at)} y={TOP + PLOT + 15} textAnchor="middle" className="fill-slate-500 text-[11px]">
                {tick.label}
              </text>
            ))}
            {minimums.map((minimum) => (
              <line
                key={minimum}
                x1={GUTTER}
                x2={width - RIGHT_PAD}
                y1={altitudeY(minimum)}
                y2={altitudeY(minimum)}
                strokeDasharray="5 4"
                strokeWidth={minimum === litMinimum ? 2 : 1}
                className="stroke-red-600"
              />
            ))}
            <g clipPath={`url(#${clipId})`}>
              {curves.map((entry, index) => {
                const id = entry.curve.observationId;
                const dimmed = highlighted !== null && highlighted !== id;
                const color = curveColors[index % curveColors.length];
                const during = entry.slot ? slotPart(entry.curve.points, Date.parse(entry.slot.start), Date.parse(entry.slot.end)) : [];
                return (
                  <g key={id} opacity={dimmed ? 0.25 : 1} onMouseEnter={() => onHighlight(id)} onMouseLeave={() => onHighlight(null)}>
                    <path d={path(entry.curve.points)} fill="none" stroke={color} strokeWidth={highlighted === id ? 3 : 1.5} />
                    {during.length > 1 ? <path d={path(during)} fill="none" stroke={color} strokeWidth={5} strokeLinecap="round" /> : null}
                    <path d={path(entry.curve.points)} fill="none" stroke="transparent" strokeWidth={12} pointerEvents="stroke">
                      <title>{`${entry.name}: ${curveSubject(entry.target)}`}</title>
                    </path>
                  </g>
                );
              })}
            </g>
          </svg>
        ) : null}
      </div>
      <ul aria-label="Altitude curves" className="flex flex-wrap gap-x-4 gap-y-1 text-xs">
        {curves.map((entry, index) => (
          <li key={entry.curve.observationId} className="flex min-w-0 items-center gap-1.5">
            <span aria-hidden="true" className="h-1 w-4 shrink-0 rounded" style={{ background: curveColors[index % curveColors.length] }} />
            <Link
              to={`/observations/${entry.curve.observationId}`}
              onFocus={() => onHighlight(entry.curve.observationId)}
              onBlur={() => onHighlight(null)}
              onMouseEnter={() => onHighlight(entry.curve.observationId)}
              onMouseLeave={() => onHighlight(null)}
              className={`truncate text-slate-700 hover:text-indigo-600 ${highlighted === entry.curve.observationId ? "font-semibold" : ""}`}
            >
              {entry.name}, minimum {entry.curve.minAltitude}°
            </Link>
            <span className="truncate text-slate-500">· {curveSubject(entry.target)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

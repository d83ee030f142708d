import type { MouseEvent } from "react";
import { useHref, useNavigate } from "react-router-dom";
import { useElementWidth } from "../../lib/useElementWidth";
import { zoneClockWithZone } from "../../lib/zone-time";
import { GUTTER, hourTicks, nightScale, RIGHT_PAD, slotLabel, slotState, type NightPlan, type PlanNight, type PlanSlot } from "./night-plan";
import { SkyBands } from "./SkyBands";

const AXIS = 18;
const SKY_TOP = 22;
const SKY_HEIGHT = 26;
const MOON_TOP = 54;
const MOON_HEIGHT = 14;
const SLOTS_TOP = 76;
const ROW = 26;
const BAR = 18;
/** About how wide a character of the 12 px labels is, to fit a label beside or inside its bar. */
const CHAR_WIDTH = 6.6;

type Scale = ReturnType<typeof nightScale>;

interface Highlight {
  highlighted: string | null;
  onHighlight(observationId: string | null): void;
}

/**
 * The night from sunset to sunrise: its twilight bands, the Moon's time above the horizon, the
 * present moment on the current night, and each slot as a bar that links to its observation. Drawn at
 * the width it is given, so labels keep their size on a phone.
 */
export function Timeline({ plan, night, now, ...highlight }: { plan: NightPlan; night: PlanNight; now: number | null } & Highlight) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const height = SLOTS_TOP + Math.max(plan.slots.length, 1) * ROW;
  return (
    <div ref={ref} className="w-full">
      {width > 0 ? (
        <svg width={width} height={height} role="group" aria-label="Timeline of the night" className="block">
          <TimelineSky plan={plan} night={night} width={width} height={height} now={now} />
          {plan.slots.map((slot, index) => (
            <SlotBar
              key={slot.observationId}
              slot={slot}
              zone={plan.timeZone}
              y={SLOTS_TOP + index * ROW}
              scale={nightScale(night, width)}
              width={width}
              {...highlight}
            />
          ))}
          {plan.slots.length === 0 ? (
            <text x={GUTTER + 4} y={SLOTS_TOP + 16} className="fill-slate-500 text-xs">
              Nothing planned for this night
            </text>
          ) : null}
        </svg>
      ) : null}
    </div>
  );
}

/** Hours, twilight bands, the Moon and "now": what the bars are read against, hidden from screen readers (the summary says it in words). */
function TimelineSky({ plan, night, width, height, now }: { plan: NightPlan; night: PlanNight; width: number; height: number; now: number | null }) {
  const scale = nightScale(night, width);
  const moon = moonUp(plan.moon, scale);
  return (
    <g aria-hidden="true">
      {hourTicks(night, plan.timeZone, width).map((tick) => (
        <g key={tick.at}>
          <line x1={scale.x(tick.at)} x2={scale.x(tick.at)} y1={AXIS} y2={height} className="stroke-slate-200" />
          <text x={scale.x(tick.at)} y={12} textAnchor="middle" className="fill-slate-500 text-[11px]">
            {tick.label}
          </text>
        </g>
      ))}
      <text x={0} y={SKY_TOP + 17} className="fill-slate-500 text-[11px]">
        Sky
      </text>
      <SkyBands night={night} scale={scale} y={SKY_TOP} height={SKY_HEIGHT} />
      <text x={0} y={MOON_TOP + 11} className="fill-slate-500 text-[11px]">
        Moon
      </text>
      {moon.map(([from, to]) => (
        <rect
          key={from}
          x={scale.x(from)}
          y={MOON_TOP + 3}
          width={Math.max(2, scale.x(to) - scale.x(from))}
          height={MOON_HEIGHT - 6}
          rx={4}
          className="fill-amber-300"
        />
      ))}
      {[plan.moon.rise, plan.moon.set].map((at, index) =>
        at ? (
          <circle key={index} cx={scale.x(at)} cy={MOON_TOP + MOON_HEIGHT / 2} r={5} className="fill-amber-500 stroke-white">
            <title>{`${index === 0 ? "Moonrise" : "Moonset"} ${zoneClockWithZone(at, plan.timeZone)}`}</title>
          </circle>
        ) : null,
      )}
      {now !== null && now >= scale.from && now <= scale.to ? (
        <g>
          <line x1={scale.x(now)} x2={scale.x(now)} y1={SKY_TOP - 4} y2={height} strokeWidth={2} className="stroke-red-600" />
          <path d={`M ${scale.x(now) - 5} ${SKY_TOP - 8} h 10 l -5 6 z`} className="fill-red-600" />
        </g>
      ) : null}
    </g>
  );
}

/** When the Moon is up between sunset and sunrise, from its rise and set; nothing when it neither rises nor sets that night (the summary says so). */
function moonUp(moon: NightPlan["moon"], scale: Scale): Array<[number, number]> {
  const rise = moon.rise ? Date.parse(moon.rise) : null;
  const set = moon.set ? Date.parse(moon.set) : null;
  if (rise !== null && set !== null)
    return rise < set
      ? [[rise, set]]
      : [
          [scale.from, set],
          [rise, scale.to],
        ];
  if (rise !== null) return [[rise, scale.to]];
  if (set !== null) return [[scale.from, set]];
  return [];
}

/** The label beside or inside a bar: inside when it fits, else on the side with more room, cut to fit. */
function placeLabel(text: string, x1: number, x2: number, width: number) {
  const fits = (room: number) => room >= text.length * CHAR_WIDTH;
  const inside = x2 - x1 - 8;
  const right = width - RIGHT_PAD - x2 - 6;
  const left = x1 - GUTTER - 6;
  const cut = (room: number) => {
    const chars = Math.floor(room / CHAR_WIDTH);
    return chars >= text.length ? text : chars >= 4 ? `${text.slice(0, chars - 1)}…` : "";
  };
  if (fits(inside)) return { text, x: x1 + 4, anchor: "start" as const, inside: true };
  if (fits(right) || right >= left) return { text: cut(right), x: x2 + 6, anchor: "start" as const, inside: false };
  return { text: cut(left), x: x1 - 6, anchor: "end" as const, inside: false };
}

function SlotBar({
  slot,
  zone,
  y,
  scale,
  width,
  highlighted,
  onHighlight,
}: { slot: PlanSlot; zone: string; y: number; scale: Scale; width: number } & Highlight) {
  const navigate = useNavigate();
  const to = `/observations/${slot.observationId}`;
  const href = useHref(to);
  const x1 = scale.x(slot.start);
  const x2 = Math.max(scale.x(slot.end), x1 + 3);
  const running = slotState(slot) !== "planned";
  const label = placeLabel(`${slot.name} · P${slot.priority}${slot.ownerName ? ` · ${slot.ownerName}` : ""}`, x1, x2, width);
  const lit = highlighted === slot.observationId;
  const follow = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    void navigate(to);
  };
  return (
    <a
      href={href}
      onClick={follow}
      aria-label={slotLabel(slot, zone)}
      onFocus={() => onHighlight(slot.observationId)}
      onBlur={() => onHighlight(null)}
      onMouseEnter={() => onHighlight(slot.observationId)}
      onMouseLeave={() => onHighlight(null)}
      className="group outline-none"
    >
      <title>{slotLabel(slot, zone)}</title>
      <rect x={GUTTER} y={y} width={width - GUTTER - RIGHT_PAD} height={ROW} className="fill-transparent" />
      <rect
        x={x1 - 3}
        y={y + (ROW - BAR) / 2 - 3}
        width={x2 - x1 + 6}
        height={BAR + 6}
        rx={5}
        strokeWidth={2}
        className="fill-none stroke-transparent group-focus-visible:stroke-indigo-600"
      />
      <rect
        x={x1}
        y={y + (ROW - BAR) / 2}
        width={x2 - x1}
        height={BAR}
        rx={3}
        strokeWidth={lit ? 2 : 0}
        className={`${running ? "fill-sky-600" : "fill-indigo-500"} ${lit ? "stroke-amber-400" : ""}`}
      />
      {label.text ? (
        <text
          x={label.x}
          y={y + ROW / 2 + 4}
          textAnchor={label.anchor}
          className={`text-xs ${label.inside ? "fill-white" : "fill-slate-800"} ${lit ? "font-semibold" : ""} group-hover:underline`}
        >
          {label.text}
        </text>
      ) : null}
    </a>
  );
}

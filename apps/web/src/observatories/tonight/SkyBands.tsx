import { skyBands, skyColors, type nightScale, type PlanNight } from "./night-plan";

/** The night's twilight bands as SVG rectangles across `height` pixels from `y`: the timeline's sky row, the altitude chart's faint backdrop. */
export function SkyBands({
  night,
  scale,
  y,
  height,
  opacity,
}: {
  night: PlanNight;
  scale: ReturnType<typeof nightScale>;
  y: number;
  height: number;
  opacity?: number;
}) {
  return skyBands(night).map((band) => (
    <rect
      key={band.from}
      x={scale.x(band.from)}
      y={y}
      width={Math.max(0, scale.x(band.to) - scale.x(band.from))}
      height={height}
      fill={skyColors[band.kind]}
      opacity={opacity}
    />
  ));
}

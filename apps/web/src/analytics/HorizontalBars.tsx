import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

/** One bar across per entry, its name beside it; the figure's name reads every value, for those who do not see the chart. */
export function HorizontalBars({
  label,
  bars,
  labelWidth,
  unit = "",
  series,
  color,
  domain,
}: {
  label: string;
  bars: Array<{ name: string; value: number }>;
  labelWidth: number;
  unit?: string;
  /** What the bars count, as the tooltip names it. */
  series: string;
  color: string;
  /** The value axis's ends, where the figure has fixed ones (a share: 0 to 100 %); else from the data. */
  domain?: [number, number];
}) {
  return (
    <figure aria-label={`${label}: ${bars.map((bar) => `${bar.name} ${bar.value}${unit}`).join(", ")}`} style={{ height: 48 + bars.length * 30 }}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={bars} layout="vertical" margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={unit !== ""} tick={{ fontSize: 11 }} unit={unit} {...(domain ? { domain } : {})} />
          <YAxis type="category" dataKey="name" width={labelWidth} interval={0} tick={{ fontSize: 11 }} />
          <Tooltip />
          <Bar dataKey="value" name={series} fill={color} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

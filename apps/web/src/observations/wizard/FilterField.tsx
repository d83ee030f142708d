import { filtersLacking } from "@meridian/rules";
import { SelectField } from "../../components/SelectField";
import { TextField } from "../../components/TextField";

/** An observatory an observation may run at, with the filters its plugin reported (null: none reported, so any filter goes). */
export interface FilterSite {
  id: string;
  name: string;
  filters: ReadonlyArray<string> | null;
}

interface FilterFieldProps {
  name: string;
  value: string;
  /** The field's own message (a rule of the draft, the server's refusal): it comes first. */
  error?: string;
  onChange(event: { target: { value: string } }): void;
  onBlur(): void;
  /** The observatories involved: today the one chosen; with candidates, each of them. */
  sites: ReadonlyArray<FilterSite>;
}

const key = (filter: string) => filter.trim().toLowerCase();
const listed = (names: ReadonlyArray<string>) => (names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`);

/** Each filter the sites report, once (names compared case-insensitively), in the order reported. */
function reportedFilters(sites: ReadonlyArray<FilterSite>): string[] {
  const seen = new Map<string, string>();
  for (const site of sites) for (const filter of site.filters ?? []) if (!seen.has(key(filter))) seen.set(key(filter), filter);
  return [...seen.values()];
}

/**
 * What to say of a filter the sites do not all have: as the server refuses it when every site lacks it (an error), else
 * which of them lack it (a hint: another may run it).
 */
function lackingMessage(value: string, sites: ReadonlyArray<FilterSite>): { error?: string; hint?: string } {
  if (!value.trim()) return {};
  const lacking = sites.filter((site) => filtersLacking(site.filters, [value]).length > 0);
  if (lacking.length === 0) return {};
  if (sites.length === 1) return { error: `${lacking[0]!.name} has no “${value.trim()}” filter: choose one of ${(lacking[0]!.filters ?? []).join(", ")}.` };
  const names = listed(lacking.map((site) => site.name));
  return lacking.length === sites.length ? { error: `${names} have no “${value.trim()}” filter.` } : { hint: `Not at ${names}.` };
}

/**
 * An exposure's filter. Where every observatory involved reported its filters, a choice among
 * them (a native select: keyboard and screen readers know it, and it fits a phone); where one
 * reported none (it takes any filter), free text. A value no observatory has stays selectable, so
 * it is never changed behind the person's back, and the field says which observatories lack it.
 */
export function FilterField({ sites, ...field }: FilterFieldProps) {
  const offered = reportedFilters(sites);
  const { error, hint } = lackingMessage(field.value, sites);
  const shown = { label: "Filter", error: field.error ?? error, hint };
  if (sites.length === 0 || sites.some((site) => !site.filters)) return <TextField {...shown} autoComplete="off" {...field} />;
  const exact = offered.includes(field.value);
  return (
    <SelectField {...shown} {...field}>
      {field.value === "" ? <option value="">Choose a filter</option> : null}
      {!exact && field.value !== "" ? <option value={field.value}>{field.value}</option> : null}
      {offered.map((filter) => (
        <option key={filter} value={filter}>
          {filter}
        </option>
      ))}
    </SelectField>
  );
}

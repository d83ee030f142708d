/**
 * Values at the edges of a JSON Schema (the OpenAPI document's, made from the operations' zod
 * schemas): each string at its longest or shortest, each number at its bounds, each array at its
 * most or fewest items, every optional field present or none. Values a schema lets through are what
 * reach the database, so these are where a 500 would hide. Strings carry quotes, `%`, `_` and a
 * backslash (the characters LIKE and JSON paths treat specially) and a character outside ASCII.
 */

export type Edge = "most" | "least";
type Schema = Record<string, unknown>;

const FILLER = `a'%_\\"é`;
const FAR_FUTURE = "9999-12-31T23:59:59.999Z";
/** For a field that starts a period (`fixedTimeStart`, `startsAt`, `from`), a moment before FAR_FUTURE: the period's end may lie after it. */
const FAR_FUTURE_START = "9999-12-30T00:00:00.000Z";
const FAR_PAST = "1900-01-01T00:00:00.000Z";
const STARTS = /start|from|begin/i;

/**
 * Fields whose schema holds a pattern or a rule no bound tells (an email address, a time zone, a
 * short name): a valid value by the field's name, so that the rest of the input gets past them.
 */
const VALID_BY_NAME: Array<[RegExp, string]> = [
  [/email$/i, "edge.case+walk@example.com"],
  [/^timeZone$/, "Pacific/Chatham"],
  [/^shortName$/, "edge-walk"],
  [/^minimumPluginVersion$/, "3.8.0.0"],
  [/^userKey$/, "u".repeat(30)],
  [/^devices$/, "phone"],
  // Only where no enum says it: a list's filter of several observation statuses.
  [/^status$/, "pending,assigned,in_progress,acquisition_complete,completed,failed,cancelled,paused,suspended,aborted,partially_completed"],
  [/^(quick|full|backupSchedule)$/, "17 3 * * 0"],
  [/^collections$/, "observations"],
  [/^endpoint$/, "https://storage.example.com"],
];
/** Past this many items an array says nothing new, and a body of nested maxima would outgrow the 1 MB limit. */
const MOST_ITEMS = 20;

function text(length: number): string {
  return FILLER.repeat(Math.ceil(length / FILLER.length)).slice(0, length);
}

function stringAt(schema: Schema, edge: Edge, name: string): string {
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : 5_000;
  const valid = VALID_BY_NAME.find(([pattern]) => pattern.test(name))?.[1];
  if (valid !== undefined) return valid;
  switch (schema.format) {
    case "date-time":
      return edge === "most" ? (STARTS.test(name) ? FAR_FUTURE_START : FAR_FUTURE) : FAR_PAST;
    case "date":
      return edge === "most" ? "9999-12-31" : "1900-01-01";
    case "uri":
    case "url":
      return `https://example.com/${edge === "most" ? text(Math.max(0, Math.min(max, 2_000) - 20)) : ""}`;
    default:
      return text(edge === "most" ? max : Math.max(min, 1));
  }
}

function numberAt(schema: Schema, edge: Edge): number {
  const integer = schema.type === "integer" || (Array.isArray(schema.type) && schema.type.includes("integer"));
  const bound = edge === "most" ? (schema.maximum ?? schema.exclusiveMaximum) : (schema.minimum ?? schema.exclusiveMinimum);
  if (typeof bound === "number") {
    const exclusive = bound === schema.exclusiveMaximum || bound === schema.exclusiveMinimum;
    const step = integer ? 1 : 1e-9;
    return exclusive ? bound + (edge === "most" ? -step : step) : bound;
  }
  return edge === "most" ? (integer ? Number.MAX_SAFE_INTEGER : 1e300) : integer ? -Number.MAX_SAFE_INTEGER : -1e300;
}

/** What a value is made for: the schema's `$ref`s, real values by field name (ids), the field's own name, and how deep it sits. */
export interface EdgeContext {
  components: Record<string, unknown>;
  named: (name: string) => unknown;
  name?: string;
  depth?: number;
}

/** A value at `edge` of `schema`: `named` gives a property's value by its name (real ids), or undefined to make one. */
export function valueAtEdge(schema: unknown, edge: Edge, context: EdgeContext): unknown {
  const { components, named, name = "", depth = 0 } = context;
  if (!schema || typeof schema !== "object" || depth > 12) return null;
  const s = schema as Schema;
  const inner = (next: unknown, nextName = name) => valueAtEdge(next, edge, { components, named, name: nextName, depth: depth + 1 });
  if (typeof s.$ref === "string") return inner(components[s.$ref.split("/").at(-1)!]);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return edge === "most" ? s.enum.at(-1) : s.enum[0];
  const options = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(options)) {
    const usable = options.filter((option) => (option as Schema).type !== "null");
    return inner(edge === "most" ? usable.at(-1) : usable[0]);
  }
  if (Array.isArray(s.allOf)) return inner(s.allOf[0]);
  const types = (Array.isArray(s.type) ? s.type : [s.type]).filter((type) => type !== "null");
  switch (types[0]) {
    case "string":
      return stringAt(s, edge, name);
    case "integer":
    case "number":
      return numberAt(s, edge);
    case "boolean":
      return edge === "most";
    case "array": {
      const min = typeof s.minItems === "number" ? s.minItems : 0;
      const max = typeof s.maxItems === "number" ? s.maxItems : MOST_ITEMS;
      const count = edge === "most" ? Math.min(max, MOST_ITEMS) : Math.max(min, 1);
      return Array.from({ length: count }, () => inner(s.items));
    }
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set((s.required ?? []) as string[]);
      const value: Record<string, unknown> = {};
      for (const [field, property] of Object.entries(properties)) {
        if (edge === "least" && !required.has(field)) continue;
        value[field] = named(field) ?? inner(property, field);
      }
      return value;
    }
    default:
      return null;
  }
}

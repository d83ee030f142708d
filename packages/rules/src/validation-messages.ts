/**
 * The one wording of validation messages, for REST, tRPC and the SPA's forms: every message is a
 * sentence made of the field's label (from the issue path) and a predicate ("must be at most 90").
 * No runtime imports: the SPA bundles this file (through `@meridian/api/rules`).
 */

type PathSegment = PropertyKey;

/** What this module reads of a zod 4 issue, before or after zod finalized it. */
export interface IssueDetails {
  code?: string;
  input?: unknown;
  expected?: string;
  origin?: string;
  minimum?: number | bigint | Date;
  maximum?: number | bigint | Date;
  inclusive?: boolean;
  format?: string;
  prefix?: string;
  suffix?: string;
  includes?: string;
  divisor?: number | bigint;
  values?: ReadonlyArray<unknown>;
}

const ACRONYMS: Record<string, string> = {
  id: "ID",
  ids: "IDs",
  url: "URL",
  urls: "URLs",
  api: "API",
  smtp: "SMTP",
  motd: "MOTD",
  s3: "S3",
  utc: "UTC",
  ip: "IP",
  ra: "RA",
};

/** `contactEmail` → "Contact email", `user_ids` → "User IDs". */
function humanizeKey(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((word) => ACRONYMS[word.toLowerCase()] ?? word.toLowerCase());
  if (words.length === 0) return "This field";
  const [first, ...rest] = words;
  return [first!.charAt(0).toUpperCase() + first!.slice(1), ...rest].join(" ");
}

/** Fields whose form label is not their key in words: the observation's window is "Window start" and "Window end" in the wizard. */
const FIELD_LABELS: Record<string, string> = { fixedTimeStart: "Window start", fixedTimeEnd: "Window end" };
const labelOf = (key: string) => FIELD_LABELS[key] ?? humanizeKey(key);

/**
 * The name a person reads for a path: its last field, and where it sits in a list.
 * `latitude` → "Latitude"; `externalStorage.0.label` → "Label (external storage 1)", `targets.0.ra` → "RA (target 1)";
 * `userIds.2` → "User IDs (item 3)"; the root → "The input". Wrappers such as tRPC's
 * `update.name` read as their field ("Name").
 */
export function fieldLabel(path: ReadonlyArray<PathSegment>): string {
  const segments = path.map((segment) =>
    typeof segment === "number" || (typeof segment === "string" && /^\d+$/.test(segment)) ? Number(segment) : String(segment),
  );
  const lastNamed = segments.findLastIndex((segment) => typeof segment === "string");
  if (lastNamed === -1) return segments.length > 0 ? `Item ${(segments.at(-1) as number) + 1}` : "The input";
  const label = labelOf(segments[lastNamed] as string);
  const trailingIndex = segments.at(-1);
  if (typeof trailingIndex === "number") return `${label} (item ${trailingIndex + 1})`;
  const index = segments.findLastIndex((segment, position) => typeof segment === "number" && position < lastNamed);
  if (index > 0 && typeof segments[index - 1] === "string")
    return `${label} (${itemOf(humanizeKey(segments[index - 1] as string).replace(/^\w/, (c) => c.toLowerCase()))} ${(segments[index] as number) + 1})`;
  return label;
}

/** One of a list, as a person names it: "target 1" of `targets`, not "targets 1". Lists not named here read as they are. */
const LIST_ITEMS: Record<string, string> = { targets: "target", exposures: "exposure" };
const itemOf = (list: string) => LIST_ITEMS[list] ?? list;

/** A sentence about the field at `path`: the label, the predicate, a full stop. A predicate that is already a sentence stays one. */
export function fieldMessage(path: ReadonlyArray<PathSegment>, predicate: string): string {
  const text = predicate.trim();
  const sentence = /^[A-Z]/.test(text) ? text : `${fieldLabel(path)} ${text}`;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

const count = (value: number | bigint) => (typeof value === "bigint" ? value.toString() : value.toLocaleString("en-US"));
const plural = (value: number | bigint, one: string, many: string) => `${count(value)} ${Number(value) === 1 ? one : many}`;
const quoted = (value: unknown) => (typeof value === "string" ? `“${value}”` : String(value));

function listOf(values: ReadonlyArray<unknown>): string {
  const shown = values.map(quoted);
  return shown.length <= 1 ? (shown[0] ?? "") : `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}`;
}

const TYPE_NAMES: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  bigint: "a whole number",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  map: "an object",
  array: "a list",
  tuple: "a list",
  set: "a list",
  date: "a date",
  null: "null",
  file: "a file",
};

const FORMATS: Record<string, string> = {
  email: "must be a valid email address",
  url: "must be a valid URL",
  uuid: "must be a UUID",
  guid: "must be a UUID",
  cuid: "must be an ID in CUID form",
  cuid2: "must be an ID in CUID2 form",
  ulid: "must be an ID in ULID form",
  datetime: "must be a date and time such as 2026-01-31T20:00:00Z",
  date: "must be a date such as 2026-01-31",
  time: "must be a time such as 20:00:00",
  duration: "must be an ISO 8601 duration such as PT1H",
  ipv4: "must be an IPv4 address",
  ipv6: "must be an IPv6 address",
  cidrv4: "must be an IPv4 range",
  cidrv6: "must be an IPv6 range",
  base64: "must be base64-encoded",
  base64url: "must be base64url-encoded",
  jwt: "must be a JSON Web Token",
  lowercase: "must be in lower case",
  uppercase: "must be in upper case",
  e164: "must be a phone number in E.164 form",
  emoji: "must be an emoji",
};

function sizePredicate(issue: IssueDetails, bound: "at most" | "at least"): string {
  const limit = (bound === "at most" ? issue.maximum : issue.minimum) ?? 0;
  const exclusive = issue.inclusive === false;
  if (limit instanceof Date)
    return `must be ${bound === "at most" ? (exclusive ? "before" : "on or before") : exclusive ? "after" : "on or after"} ${limit.toISOString()}`;
  switch (issue.origin) {
    case "string":
      if (bound === "at least" && Number(limit) === 1) return "must not be empty";
      return `must have ${bound} ${plural(limit, "character", "characters")}`;
    case "array":
    case "set":
    case "map":
      if (bound === "at least" && Number(limit) === 1) return "must have at least one item";
      return `must have ${bound} ${plural(limit, "item", "items")}`;
    case "file":
      return `must be ${bound} ${plural(limit, "byte", "bytes")}`;
    case "date":
      return `must be ${bound === "at most" ? "on or before" : "on or after"} ${new Date(Number(limit)).toISOString()}`;
    default:
      if (exclusive) return `must be ${bound === "at most" ? "less" : "greater"} than ${count(limit)}`;
      return `must be ${bound} ${count(limit)}`;
  }
}

/** The predicate for one zod issue (any kind), without the field's label. */
export function issuePredicate(issue: IssueDetails): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined && "input" in issue) return "is required";
      return `must be ${TYPE_NAMES[issue.expected ?? ""] ?? issue.expected ?? "of another type"}`;
    case "too_big":
      return sizePredicate(issue, "at most");
    case "too_small":
      return sizePredicate(issue, "at least");
    case "invalid_format":
      if (issue.format === "starts_with") return `must start with ${quoted(issue.prefix)}`;
      if (issue.format === "ends_with") return `must end with ${quoted(issue.suffix)}`;
      if (issue.format === "includes") return `must contain ${quoted(issue.includes)}`;
      return FORMATS[issue.format ?? ""] ?? "is not in the expected form";
    case "not_multiple_of":
      return `must be a multiple of ${count(issue.divisor ?? 1)}`;
    case "invalid_value":
      return issue.values && issue.values.length > 0
        ? issue.values.length === 1
          ? `must be ${quoted(issue.values[0])}`
          : `must be one of ${listOf(issue.values)}`
        : "is not an allowed value";
    case "invalid_union":
      return "does not match any of the allowed forms";
    case "invalid_key":
      return "is not an allowed key";
    case "invalid_element":
      return "has an entry that is not valid";
    case "unrecognized_keys":
      return "has fields that are not known";
    default:
      return "is not valid";
  }
}

/** What an unknown field in a body reads as, at the unknown field's own path. */
export const UNKNOWN_FIELD = "is not a known field";

import type { BadgeTone } from "../components/Badge";
import type { RouterOutputs } from "../organizations/types";

export type Scan = RouterOutputs["integrity"]["scan"];
export type Issue = RouterOutputs["integrity"]["issues"]["items"][number];
export const severities = ["critical", "warning", "info"] as const;
export const issueTypes = ["structure", "status", "reference", "file", "data_quality"] as const;
export type IssueFilter = {
  severity?: (typeof severities)[number];
  type?: (typeof issueTypes)[number];
  collection?: string;
  autoFixable?: "true" | "false";
};

/** The list's filters as the page's URL holds them (`?scan=…&severity=…`): values the API does not know are ignored. */
export function filterFromParams(params: URLSearchParams): IssueFilter {
  const filter: IssueFilter = {};
  const severity = params.get("severity");
  if (severity && (severities as readonly string[]).includes(severity)) filter.severity = severity as IssueFilter["severity"];
  const type = params.get("type");
  if (type && (issueTypes as readonly string[]).includes(type)) filter.type = type as IssueFilter["type"];
  const collection = params.get("collection");
  if (collection && /^[a-z_]{1,100}$/.test(collection)) filter.collection = collection;
  const autoFixable = params.get("autoFixable");
  if (autoFixable === "true" || autoFixable === "false") filter.autoFixable = autoFixable;
  return filter;
}

/** Who or what started a scan, for the history. */
export const triggerLabel: Record<Scan["trigger"], string> = {
  manual: "by an administrator",
  scheduled: "scheduled",
  cli: "from the command line",
  restore: "after a restore",
};

export const severityTone: Record<string, BadgeTone> = { critical: "red", warning: "amber", info: "sky" };
export const scanStatusTone: Record<string, BadgeTone> = { queued: "slate", running: "indigo", completed: "emerald", failed: "red" };
export const typeLabel = (type: string) => (type === "data_quality" ? "data quality" : type);
export const isRunning = (scan: Pick<Scan, "status">) => scan.status === "queued" || scan.status === "running";

export interface DiffLine {
  sign: "-" | "+" | " ";
  text: string;
}

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** A fix's changes as the lines of a diff: what goes (−) and what comes (+). */
export function diffLines(changes: ReadonlyArray<Record<string, unknown>>): DiffLine[] {
  return changes.flatMap((change): DiffLine[] => {
    if ("field" in change) {
      const lines: DiffLine[] = [{ sign: "-", text: `${show(change.field)}: ${show(change.from)}` }];
      if (change.to !== null && change.to !== undefined) lines.push({ sign: "+", text: `${show(change.field)}: ${show(change.to)}` });
      if (change.reason) lines.push({ sign: " ", text: `reason: ${show(change.reason)}` });
      return lines;
    }
    if ("create" in change) return [{ sign: "+", text: `${show(change.create)}: new record for ${show(change.filename)}` }];
    if ("delete" in change) return [{ sign: "-", text: `${show(change.delete)}: record ${show(change.id)}` }];
    if ("analyse" in change) return [{ sign: "+", text: `${show(change.analyse)}: analysis of ${show(change.id)} queued again` }];
    if ("move" in change)
      return [
        { sign: "-", text: show(change.move) },
        { sign: "+", text: show(change.to) },
      ];
    return [{ sign: " ", text: JSON.stringify(change) }];
  });
}

/** The export link for a scan's issues with the list's filters (the session cookie authorises it). */
export function exportUrl(scanId: string, format: "csv" | "json", filter: IssueFilter) {
  const query = new URLSearchParams({ format });
  for (const [key, value] of Object.entries(filter)) if (value) query.set(key, value);
  return `/api/v1/admin/integrity/scans/${scanId}/issues/export?${query}`;
}

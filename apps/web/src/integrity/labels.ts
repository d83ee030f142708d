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

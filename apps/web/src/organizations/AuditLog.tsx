import { ArrowRight, ScrollText } from "lucide-react";
import { Alert } from "../components/Alert";
import { Badge, type BadgeTone } from "../components/Badge";
import { EmptyState } from "../components/EmptyState";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { QueryState } from "../components/QueryState";
import { DataTable, td, Th } from "../components/Table";
import { summarizeError } from "../lib/errors";
import { formatDateTime } from "../lib/format";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { trpc, trpcClient } from "../trpc";
import { permissionLabel } from "./labels";
import type { AuditEntry } from "./types";

const PAGE_SIZE = 25;

const actionLabels: Record<string, string> = {
  "organization.created": "Organization created",
  "organization.updated": "Details changed",
  "organization.member_added": "Member added",
  "organization.member_removed": "Member removed",
  "organization.member_left": "Member left",
  "organization.member_permissions_updated": "Permissions changed",
  "organization.ownership_transferred": "Ownership transferred",
  "organization.external_storage_updated": "Storage changed",
};

const actionTone = (action: string): BadgeTone =>
  action.endsWith("removed") || action.endsWith("left")
    ? "red"
    : action.endsWith("added") || action.endsWith("created")
      ? "emerald"
      : action.includes("ownership")
        ? "amber"
        : "sky";

const humanizeAction = (action: string) => {
  const known = actionLabels[action];
  if (known) return known;
  const last = action.split(".").pop() ?? action;
  return last.charAt(0).toUpperCase() + last.slice(1).replaceAll("_", " ");
};

type NameOf = (id: string) => string | undefined;

/** Stored and accepted by the API, but deprecated and shown nowhere. */
const HIDDEN_PERMISSIONS = new Set(["can_manage_billing"]);

function formatValue(value: unknown, key: string | null, nameOf: NameOf): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string") return (key?.endsWith("Id") && nameOf(value)) || value;
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map((item) => formatValue(item, null, nameOf)).join(", ");
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    // A permission set: list what is granted.
    if (entries.length > 0 && entries.every(([, item]) => typeof item === "boolean")) {
      const granted = entries.filter(([name, item]) => item && !HIDDEN_PERMISSIONS.has(name)).map(([name]) => permissionLabel(name));
      return granted.length === 0 ? "none" : granted.join(", ");
    }
    if ("label" in value && typeof (value as { label: unknown }).label === "string") return (value as { label: string }).label;
    if ("kind" in value && "id" in value) return `${(value as { kind: string }).kind} ${formatValue((value as { id: unknown }).id, "ownerId", nameOf)}`;
    return entries.map(([name, item]) => `${name}: ${formatValue(item, name, nameOf)}`).join("; ");
  }
  return String(value);
}

const fieldName = (key: string) => {
  if (key === "ownerId" || key === "owner") return "Owner";
  return permissionLabel(key)
    .replace(/([a-z])([A-Z])/g, (_match, a: string, b: string) => `${a} ${b.toLowerCase()}`)
    .replace(/^./, (c) => c.toUpperCase());
};

/** One line per changed field: "name: before → after". */
function describeChange(before: unknown, after: unknown, nameOf: NameOf): Array<{ field: string | null; before: string | null; after: string | null }> {
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !HIDDEN_PERMISSIONS.has(key));
    return keys
      .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
      .map((key) => ({ field: fieldName(key), before: formatValue(before[key], key, nameOf), after: formatValue(after[key], key, nameOf) }));
  }
  if (isObject(after) && before === null)
    return Object.entries(after).map(([key, value]) => ({ field: fieldName(key), before: null, after: formatValue(value, key, nameOf) }));
  if (isObject(before) && after === null)
    return Object.entries(before).map(([key, value]) => ({ field: fieldName(key), before: formatValue(value, key, nameOf), after: null }));
  if (before === null && after === null) return [];
  return [{ field: null, before: before === null ? null : formatValue(before, null, nameOf), after: after === null ? null : formatValue(after, null, nameOf) }];
}

function ChangeList({ entry, nameOf }: { entry: Pick<AuditEntry, "before" | "after">; nameOf: NameOf }) {
  const lines = describeChange(entry.before, entry.after, nameOf);
  if (lines.length === 0) return <span className="text-slate-400">—</span>;
  return (
    <ul className="flex flex-col gap-0.5 text-xs">
      {lines.map((line, index) => (
        <li key={index} className="flex flex-wrap items-center gap-1">
          {line.field ? <span className="font-medium text-slate-600">{line.field}:</span> : null}
          {line.before !== null ? (
            <span className={line.after !== null ? "text-slate-500 line-through decoration-slate-300" : "text-red-700 line-through"}>{line.before}</span>
          ) : null}
          {line.before !== null && line.after !== null ? <ArrowRight aria-label="changed to" className="size-3 text-slate-400" /> : null}
          {line.after !== null ? <span className="text-slate-800">{line.after}</span> : null}
        </li>
      ))}
    </ul>
  );
}

export function AuditLog({ organizationId, nameOf }: { organizationId: string; nameOf: NameOf }) {
  const input = { id: organizationId, limit: PAGE_SIZE };
  const { query: audit, items: entries } = useCursorPages(trpc.organizations.audit.infiniteQueryKey(input), (cursor, signal) =>
    trpcClient.organizations.audit.query(pageInput(input, cursor), { signal }),
  );
  return (
    <section aria-labelledby="audit-title" className="flex flex-col gap-4">
      <div>
        <h2 id="audit-title" className="text-base font-semibold text-slate-900">
          Audit log
        </h2>
        <p className="mt-1 text-sm text-slate-500">
          Every change to membership, permissions, ownership and storage, newest first. Names are as they were at the time.
        </p>
      </div>
      <QueryState
        query={audit}
        loading="Loading the audit log"
        error="Could not load the audit log"
        isEmpty={() => entries.length === 0}
        empty={
          <EmptyState icon={ScrollText} title="Nothing recorded yet">
            Adding or removing members, changing permissions or storage, and transferring ownership are recorded here.
          </EmptyState>
        }
      >
        {() => (
          <DataTable
            label="Audit log"
            columns={
              <>
                <Th>Action</Th>
                <Th>Actor</Th>
                <Th>Target</Th>
                <Th>Change</Th>
                <Th>Time</Th>
              </>
            }
          >
            {entries.map((entry) => (
              <tr key={entry.id} className="align-top">
                <td className={td}>
                  <Badge tone={actionTone(entry.action)} title={entry.action}>
                    {humanizeAction(entry.action)}
                  </Badge>
                </td>
                <td className={`${td} whitespace-nowrap`}>{entry.actorName ?? (entry.actorId ? nameOf(entry.actorId) : null) ?? "System"}</td>
                <td className={td}>
                  <span className="font-medium text-slate-800">{entry.target.name ?? nameOf(entry.target.id) ?? entry.target.id}</span>
                  <span className="block text-xs text-slate-500 capitalize">{entry.target.kind}</span>
                </td>
                <td className={`${td} min-w-56`}>
                  <ChangeList entry={entry} nameOf={nameOf} />
                </td>
                <td className={`${td} whitespace-nowrap text-slate-500`}>
                  <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryState>
      <LoadMoreButton query={audit} />
      {audit.isFetchNextPageError ? <Alert tone="error">Could not load more entries: {summarizeError(audit.error).message}</Alert> : null}
    </section>
  );
}

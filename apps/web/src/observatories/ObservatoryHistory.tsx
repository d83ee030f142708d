import { ArrowRightLeft, Building2, History, Hourglass, Minus, Pencil, Plus, Settings, Sparkles, UserMinus, UserPlus } from "lucide-react";
import { EmptyState } from "../components/EmptyState";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { QueryState } from "../components/QueryState";
import { formatDateTime, formatShortDate } from "../lib/format";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { trpc, trpcClient } from "../trpc";
import { grantedPermissions, observatoryPermissionInfo, type HistoryEntry, type ObservatoryPermissions } from "./permissions";

const PAGE_SIZE = 25;

const listOf = (permissions: unknown) => {
  if (!permissions || typeof permissions !== "object") return "none";
  const granted = grantedPermissions(permissions as ObservatoryPermissions);
  return granted.length === 0 ? "none" : granted.map((key) => observatoryPermissionInfo[key].label.toLowerCase()).join(", ");
};

const text = (value: unknown) => (typeof value === "string" ? value : null);
const member = (data: Record<string, unknown>) => text(data.userName) ?? text(data.email) ?? "A member";

const settingLabels: Record<string, string> = { name: "Name", location: "Location", dispatchEnabled: "Dispatch" };

function settingValue(key: string, value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (key === "dispatchEnabled") return value ? "on" : "off";
  if (key === "location" && typeof value === "object") {
    const { latitude, longitude, elevation } = value as { latitude: number; longitude: number; elevation: number };
    return `${latitude}°, ${longitude}°, ${elevation} m`;
  }
  return String(value);
}

function describeSettingChanges(changes: unknown): string {
  if (!changes || typeof changes !== "object") return "";
  return Object.entries(changes as Record<string, { before: unknown; after: unknown }>)
    .map(([key, change]) => `${settingLabels[key] ?? key}: ${settingValue(key, change.before)} → ${settingValue(key, change.after)}`)
    .join("; ");
}

function describe(entry: HistoryEntry, names: (id: string) => string | undefined) {
  const data = entry.data;
  const organization = text(data.organizationName) ?? "An organization";
  switch (entry.type) {
    case "organization_added":
      return { Icon: Plus, title: `${organization} added${data.owning ? " as owner" : ""}`, detail: `Permissions: ${listOf(data.permissionsAfter)}` };
    case "organization_removed":
      return { Icon: Minus, title: `${organization} removed`, detail: `Had: ${listOf(data.permissionsBefore)}` };
    case "organization_permissions_updated":
      return { Icon: Pencil, title: `${organization}'s permissions changed`, detail: `${listOf(data.permissionsBefore)} → ${listOf(data.permissionsAfter)}` };
    case "ownership_transferred": {
      const to = data.to as { kind?: string; id?: string } | undefined;
      const toName = text(data.toName) ?? (to?.id ? names(to.id) : undefined) ?? "someone";
      const fromName = text(data.fromName);
      return {
        Icon: ArrowRightLeft,
        title: `Ownership transferred ${fromName ? `from ${fromName} ` : ""}to ${toName}`,
        detail: to?.kind === "organization" ? "The organization now owns the observatory." : "The previous owner keeps full access.",
      };
    }
    case "created":
      return {
        Icon: Sparkles,
        title: `Observatory created as ${text(data.name) ?? "this observatory"}`,
        detail: `Owner: ${text(data.ownerName) ?? "unknown"}`,
      };
    case "member_added":
      return { Icon: UserPlus, title: `${member(data)} added`, detail: `Permissions: ${listOf(data.permissionsAfter)}` };
    case "member_removed":
      return { Icon: UserMinus, title: data.left ? `${member(data)} left` : `${member(data)} removed`, detail: `Had: ${listOf(data.permissionsBefore)}` };
    case "member_permissions_updated":
      return { Icon: Pencil, title: `${member(data)}'s permissions changed`, detail: `${listOf(data.permissionsBefore)} → ${listOf(data.permissionsAfter)}` };
    case "allocation_set":
      return {
        Icon: Hourglass,
        title: `${text(data.projectName) ?? "A project"} allocated ${String(data.hours)} h`,
        detail: `From ${formatShortDate(text(data.periodStart))} to ${formatShortDate(text(data.periodEnd))}`,
      };
    case "allocation_removed":
      return { Icon: Hourglass, title: `${text(data.projectName) ?? "A project"}'s allocation removed`, detail: "Unlimited again" };
    case "settings_changed":
      return { Icon: Settings, title: "Settings changed", detail: describeSettingChanges(data.changes) };
    default:
      return { Icon: Building2, title: entry.type.replaceAll("_", " ").replace(/^./, (c) => c.toUpperCase()), detail: "" };
  }
}

export function ObservatoryHistory({ observatoryId, names }: { observatoryId: string; names: (id: string) => string | undefined }) {
  const input = { id: observatoryId, limit: PAGE_SIZE };
  const { query: history, items } = useCursorPages(trpc.observatories.history.infiniteQueryKey(input), (cursor, signal) =>
    trpcClient.observatories.history.query(pageInput(input, cursor), { signal }),
  );
  if (history.isPending || history.isError) return <QueryState query={history} loading="Loading history" error="Could not load the history" />;
  if (items.length === 0)
    return (
      <EmptyState icon={History} title="No history yet">
        Changes to members, organizations with access, settings and ownership appear here, and the plugin's connections once it has one.
      </EmptyState>
    );
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title" className="mb-3 text-base font-semibold text-slate-900">
        History <span className="text-sm font-normal text-slate-500">newest first</span>
      </h2>
      <ol aria-label="Observatory history" className="divide-y divide-slate-100 rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
        {items.map((entry) => {
          const { Icon, title, detail } = describe(entry, names);
          // The server names every actor (the owner and organizations' members are on no member list); "(you)" comes from `names`.
          const actor = entry.actorId ? (names(entry.actorId) ?? entry.actorName ?? "a deleted account") : "System";
          return (
            <li key={entry.id} className="flex gap-3 px-4 py-3 sm:px-5">
              <span className="mt-0.5 flex size-8 shrink-0 items-center justify-center rounded-full bg-slate-100 text-slate-600">
                <Icon aria-hidden="true" className="size-4" />
              </span>
              <div className="min-w-0 flex-1">
                <p className="text-sm font-medium text-slate-900">{title}</p>
                {detail ? <p className="text-sm text-slate-600">{detail}</p> : null}
                <p className="mt-0.5 text-xs text-slate-500">
                  by {actor} · <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                </p>
              </div>
            </li>
          );
        })}
      </ol>
      <LoadMoreButton query={history} className="mt-4" />
    </section>
  );
}

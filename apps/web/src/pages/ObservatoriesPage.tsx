import { useState } from "react";
import { Building2, Plus, Telescope, UserRound } from "lucide-react";
import { Link, useNavigate } from "react-router-dom";
import { ActiveAnnouncementsIcon, useObservatoryAnnouncementCounts } from "../announcements/ActiveAnnouncementsIcon";
import { useMe } from "../auth/useMe";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { NavigationNotice } from "../components/NavigationNotice";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { formatDateTime } from "../lib/format";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { CreateObservatoryDialog } from "../observatories/CreateObservatoryDialog";
import { ownerDescription } from "../observatories/owner";
import { OnlineBadge, PermissionBadges } from "../observatories/PermissionBadges";
import { useMyOrganizations } from "../organizations/useMyOrganizations";
import { trpc, trpcClient } from "../trpc";
import { useDocumentTitle } from "../lib/document-title";

const PAGE_SIZE = 50;

export function ObservatoriesPage() {
  useDocumentTitle("Observatories");
  const me = useMe();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const { query: list, items } = useCursorPages(trpc.observatories.list.infiniteQueryKey({ limit: PAGE_SIZE }), (cursor, signal) =>
    trpcClient.observatories.list.query(pageInput({ limit: PAGE_SIZE }, cursor), { signal }),
  );
  const organizations = useMyOrganizations();
  const announcementCounts = useObservatoryAnnouncementCounts();
  const organizationName = (id: string) => organizations.data?.items.find((organization) => organization.id === id)?.name;

  return (
    <>
      <PageHeader
        title="Observatories"
        description="Telescopes you own or were invited to, directly or through an organization."
        actions={
          <Button icon={<Plus aria-hidden="true" className="size-4" />} onClick={() => setCreating(true)}>
            New observatory
          </Button>
        }
      />
      <NavigationNotice />
      <QueryState
        query={list}
        loading="Loading observatories"
        error="Could not load observatories"
        isEmpty={() => items.length === 0}
        empty={
          <EmptyState
            icon={Telescope}
            title="No observatories yet"
            actions={
              <Button icon={<Plus aria-hidden="true" className="size-4" />} onClick={() => setCreating(true)}>
                Create an observatory
              </Button>
            }
          >
            Create one for your telescope, then connect its plugin from its Plugin keys tab. To use someone else's, ask its administrator to add you by your
            email address, or to add an organization you belong to.
          </EmptyState>
        }
      >
        {() => (
          <ul aria-label="Observatories" className="grid grid-cols-1 gap-4 sm:grid-cols-2">
            {items.map((observatory) => {
              const OwnerIcon = observatory.owner.kind === "organization" ? Building2 : UserRound;
              return (
                <li
                  key={observatory.id}
                  aria-label={observatory.name}
                  className={
                    "relative flex min-w-0 flex-col gap-3 rounded-lg bg-white p-5 shadow-sm ring-1 " +
                    "ring-slate-200 transition focus-within:ring-indigo-400 hover:ring-indigo-300"
                  }
                >
                  <div className="flex items-start gap-3">
                    <span className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-indigo-50 text-indigo-600">
                      <Telescope aria-hidden="true" className="size-5" />
                    </span>
                    <div className="min-w-0 flex-1">
                      <h2 className="truncate text-sm font-semibold text-slate-900">
                        <Link to={`/observatories/${observatory.id}`} className="focus:outline-none">
                          {/* The whole card is the link's target area. */}
                          <span aria-hidden="true" className="absolute inset-0 rounded-lg" />
                          {observatory.name}
                        </Link>
                      </h2>
                      <p className="mt-0.5 flex items-center gap-1 text-xs text-slate-500">
                        <OwnerIcon aria-hidden="true" className="size-3.5" />
                        <span>
                          Owned by {ownerDescription(observatory.owner, me.data?.id, organizationName)}
                          <span className="sr-only"> ({observatory.owner.kind === "organization" ? "organization" : "user"})</span>
                        </span>
                      </p>
                    </div>
                    <ActiveAnnouncementsIcon count={announcementCounts.get(observatory.id) ?? 0} />
                    <OnlineBadge online={observatory.connection.online} />
                  </div>
                  {observatory.myPermissions ? <PermissionBadges permissions={observatory.myPermissions} /> : null}
                  <p className="text-xs text-slate-400">
                    {observatory.connection.lastSeenAt ? `Last seen ${formatDateTime(observatory.connection.lastSeenAt)}` : "Never connected"}
                  </p>
                </li>
              );
            })}
          </ul>
        )}
      </QueryState>
      <LoadMoreButton query={list} className="mt-4" />
      {creating ? (
        <CreateObservatoryDialog onClose={() => setCreating(false)} onCreated={(observatory) => void navigate(`/observatories/${observatory.id}`)} />
      ) : null}
    </>
  );
}

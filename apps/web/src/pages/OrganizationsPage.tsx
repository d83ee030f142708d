import { useState } from "react";
import { Building2, Plus } from "lucide-react";
import { Link, useNavigate } from "react-router-dom";
import { isServerAdmin, useMe } from "../auth/useMe";
import { Alert } from "../components/Alert";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { OwnerBadge } from "../components/members/OwnerBadge";
import { NavigationNotice } from "../components/NavigationNotice";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { SearchField } from "../components/SearchField";
import { DataTable, td, Th } from "../components/Table";
import { Toggle } from "../components/Toggle";
import { useSearch } from "../lib/useSearch";
import { summarizeError } from "../lib/errors";
import { formatDateTime } from "../lib/format";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { CreateOrganizationDialog } from "../organizations/CreateOrganizationDialog";
import { organizationTypeLabels } from "../organizations/labels";
import { trpc, trpcClient } from "../trpc";
import { useDocumentTitle } from "../lib/document-title";

/** Organizations on one page of a server administrator's list of every organization. */
const PAGE_SIZE = 25;

export function OrganizationsPage() {
  useDocumentTitle("Organizations");
  const me = useMe();
  const admin = isServerAdmin(me.data);
  const [showAll, setShowAll] = useState(false);
  const all = admin && showAll;
  const search = useSearch();
  const { q } = search;
  // The caller's own organizations come whole (a membership cap bounds them); every organization comes in pages.
  const input = all ? (q ? { all: true, q, limit: PAGE_SIZE } : { all: true, limit: PAGE_SIZE }) : {};
  const { query: list, items } = useCursorPages(
    trpc.organizations.list.infiniteQueryKey(input),
    (cursor, signal) => trpcClient.organizations.list.query(pageInput(input, cursor), { signal }),
    { keepPreviousList: true },
  );
  const searched = all && q !== "";
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();

  return (
    <>
      <PageHeader
        title="Organizations"
        description="The groups that own observatories and run projects."
        actions={
          <Button icon={<Plus aria-hidden="true" className="size-4" />} onClick={() => setCreating(true)}>
            New organization
          </Button>
        }
      />
      <NavigationNotice />
      {admin ? (
        <div className="mb-4 rounded-lg bg-white px-4 shadow-sm ring-1 ring-slate-200 sm:px-6">
          <Toggle
            label="All organizations"
            description="As a server administrator you may see every organization on this server."
            checked={showAll}
            onChange={setShowAll}
          />
          {all ? (
            <SearchField
              label="Search organizations"
              placeholder="Name or short name"
              className="max-w-sm pb-4"
              value={search.text}
              onChange={search.setText}
            />
          ) : null}
        </div>
      ) : null}

      <QueryState
        query={list}
        loading="Loading organizations"
        error="Could not load organizations"
        isEmpty={() => items.length === 0}
        empty={
          searched ? (
            <EmptyState icon={Building2} title={`No organization matches “${q}”`}>
              The search looks for these letters in names and short names: check the spelling, or search for fewer.
            </EmptyState>
          ) : (
            <EmptyState
              icon={Building2}
              title={all ? "No organizations on this server" : "You are not in any organization yet"}
              actions={
                <Button icon={<Plus aria-hidden="true" className="size-4" />} onClick={() => setCreating(true)}>
                  Create an organization
                </Button>
              }
            >
              Create one for your university, club or company, then invite its members by email.
              {all ? null : " To join one, ask its owner or a member who manages its members to add you by your email address."}
            </EmptyState>
          )
        }
      >
        {() => (
          <DataTable
            label={all ? "All organizations" : "Your organizations"}
            columns={
              <>
                <Th>Name</Th>
                <Th className="hidden sm:table-cell">Type</Th>
                <Th>Role</Th>
                <Th className="hidden md:table-cell">Created</Th>
              </>
            }
          >
            {items.map((organization) => (
              <tr key={organization.id} className="hover:bg-slate-50">
                <td className={td}>
                  <Link to={`/organizations/${organization.id}`} className="font-medium text-slate-900 hover:text-indigo-600">
                    {organization.name}
                  </Link>
                  <p className="font-mono text-xs text-slate-500">{organization.shortName}</p>
                </td>
                <td className={`${td} hidden sm:table-cell`}>{organizationTypeLabels[organization.type]}</td>
                <td className={td}>
                  {organization.ownerId === me.data?.id ? <OwnerBadge /> : all ? <span className="text-slate-400">—</span> : <Badge>Member</Badge>}
                </td>
                <td className={`${td} hidden text-slate-500 md:table-cell`}>{formatDateTime(organization.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryState>
      <LoadMoreButton query={list} className="mt-4" />
      {list.isFetchNextPageError ? (
        <Alert tone="error" className="mt-4">
          Could not load more organizations: {summarizeError(list.error).message}
        </Alert>
      ) : null}

      {creating ? (
        <CreateOrganizationDialog onClose={() => setCreating(false)} onCreated={(organization) => void navigate(`/organizations/${organization.id}`)} />
      ) : null}
    </>
  );
}

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Building2, Plus } from "lucide-react";
import { Link, useNavigate } from "react-router-dom";
import { isServerAdmin, useMe } from "../auth/useMe";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";
import { OwnerBadge } from "../components/members/OwnerBadge";
import { NavigationNotice } from "../components/NavigationNotice";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { DataTable, td, Th } from "../components/Table";
import { Toggle } from "../components/Toggle";
import { formatDateTime } from "../lib/format";
import { CreateOrganizationDialog } from "../organizations/CreateOrganizationDialog";
import { organizationTypeLabels } from "../organizations/labels";
import { trpc } from "../trpc";
import { useDocumentTitle } from "../lib/document-title";

export function OrganizationsPage() {
  useDocumentTitle("Organizations");
  const me = useMe();
  const admin = isServerAdmin(me.data);
  const [showAll, setShowAll] = useState(false);
  const all = admin && showAll;
  const list = useQuery(trpc.organizations.list.queryOptions(all ? { all: true } : undefined, { staleTime: 0 }));
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
        </div>
      ) : null}

      <QueryState
        query={list}
        loading="Loading organizations"
        error="Could not load organizations"
        isEmpty={(data) => data.items.length === 0}
        empty={
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
        }
      >
        {(data) => (
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
            {data.items.map((organization) => (
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

      {creating ? (
        <CreateOrganizationDialog onClose={() => setCreating(false)} onCreated={(organization) => void navigate(`/organizations/${organization.id}`)} />
      ) : null}
    </>
  );
}

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { FolderKanban, Plus } from "lucide-react";
import { Link, useNavigate } from "react-router-dom";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";
import { NavigationNotice } from "../components/NavigationNotice";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { DataTable, td, Th } from "../components/Table";
import { formatDateTime } from "../lib/format";
import { useMyOrganizations } from "../organizations/useMyOrganizations";
import { CreateProjectDialog } from "../projects/CreateProjectDialog";
import { projectRoleLabels, projectStatusInfo } from "../projects/labels";
import { trpc } from "../trpc";
import { useDocumentTitle } from "../lib/document-title";

export function ProjectsPage() {
  useDocumentTitle("Projects");
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const list = useQuery(trpc.projects.list.queryOptions(undefined, { staleTime: 0 }));
  const organizations = useMyOrganizations();
  const organizationName = (id: string) => organizations.data?.items.find((organization) => organization.id === id)?.name ?? "An organization";

  return (
    <>
      <PageHeader
        title="Projects"
        description="Observing programmes you own or belong to."
        actions={
          <Button icon={<Plus aria-hidden="true" className="size-4" />} onClick={() => setCreating(true)}>
            New project
          </Button>
        }
      />
      <NavigationNotice />
      <QueryState
        query={list}
        loading="Loading projects"
        error="Could not load projects"
        isEmpty={(data) => data.items.length === 0}
        empty={
          <EmptyState
            icon={FolderKanban}
            title="No projects yet"
            actions={
              <Button icon={<Plus aria-hidden="true" className="size-4" />} onClick={() => setCreating(true)}>
                Create a project
              </Button>
            }
          >
            Every observation belongs to a project. Create one to plan observations alone or with others, or ask a project's owner or admins to add you by your
            email address.
          </EmptyState>
        }
      >
        {(data) => (
          <DataTable
            label="Projects"
            columns={
              <>
                <Th>Name</Th>
                <Th>Status</Th>
                <Th className="hidden sm:table-cell">Organization</Th>
                <Th className="hidden sm:table-cell">Your role</Th>
                <Th className="hidden md:table-cell">Created</Th>
              </>
            }
          >
            {data.items.map((project) => (
              <tr key={project.id} className="hover:bg-slate-50">
                <td className={td}>
                  <Link to={`/projects/${project.id}`} className="font-medium text-slate-900 hover:text-indigo-600">
                    {project.name}
                  </Link>
                </td>
                <td className={td}>
                  <Badge tone={projectStatusInfo[project.status].tone}>{projectStatusInfo[project.status].label}</Badge>
                </td>
                <td className={`${td} hidden sm:table-cell`}>
                  {project.organizationId ? organizationName(project.organizationId) : <span className="text-slate-400">Personal</span>}
                </td>
                <td className={`${td} hidden sm:table-cell`}>{project.myRole ? projectRoleLabels[project.myRole] : "—"}</td>
                <td className={`${td} hidden text-slate-500 md:table-cell`}>{formatDateTime(project.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryState>
      {creating ? <CreateProjectDialog onClose={() => setCreating(false)} onCreated={(project) => void navigate(`/projects/${project.id}`)} /> : null}
    </>
  );
}

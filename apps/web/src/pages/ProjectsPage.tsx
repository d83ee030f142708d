import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { FolderKanban, Plus } from "lucide-react";
import { Link, useNavigate } from "react-router-dom";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";
import { PageHeader } from "../components/PageHeader";
import { Spinner } from "../components/Spinner";
import { summarizeError } from "../lib/errors";
import { formatDateTime } from "../lib/format";
import { useMyOrganizations } from "../organizations/useMyOrganizations";
import { Badge } from "../organizations/ui/Badge";
import { TableFrame, tbody, td, th } from "../organizations/ui/Table";
import { CreateProjectDialog } from "../projects/CreateProjectDialog";
import { projectRoleLabels, projectStatusInfo } from "../projects/labels";
import { trpc } from "../trpc";

export function ProjectsPage() {
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
      {list.isPending ? <Spinner label="Loading projects" /> : null}
      {list.isError ? <Alert tone="error">Could not load projects: {summarizeError(list.error).message}</Alert> : null}
      {list.data && list.data.items.length === 0 ? (
        <EmptyState icon={FolderKanban} title="No projects yet">
          Create a project to plan observations together, or ask a project's owner to add you.
        </EmptyState>
      ) : null}
      {list.data && list.data.items.length > 0 ? (
        <TableFrame label="Projects">
          <thead className="bg-slate-50">
            <tr>
              <th scope="col" className={th}>Name</th>
              <th scope="col" className={th}>Status</th>
              <th scope="col" className={`${th} hidden sm:table-cell`}>Organization</th>
              <th scope="col" className={`${th} hidden sm:table-cell`}>Your role</th>
              <th scope="col" className={`${th} hidden md:table-cell`}>Created</th>
            </tr>
          </thead>
          <tbody className={tbody}>
            {list.data.items.map((project) => (
              <tr key={project.id} className="hover:bg-slate-50">
                <td className={td}>
                  <Link to={`/projects/${project.id}`} className="font-medium text-slate-900 hover:text-indigo-600">
                    {project.name}
                  </Link>
                </td>
                <td className={td}>
                  <Badge tone={projectStatusInfo[project.status].tone}>{projectStatusInfo[project.status].label}</Badge>
                </td>
                <td className={`${td} hidden sm:table-cell`}>{project.organizationId ? organizationName(project.organizationId) : <span className="text-slate-400">Personal</span>}</td>
                <td className={`${td} hidden sm:table-cell`}>{project.myRole ? projectRoleLabels[project.myRole] : "—"}</td>
                <td className={`${td} hidden text-slate-500 md:table-cell`}>{formatDateTime(project.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </TableFrame>
      ) : null}
      {creating ? <CreateProjectDialog onClose={() => setCreating(false)} onCreated={(project) => navigate(`/projects/${project.id}`)} /> : null}
    </>
  );
}

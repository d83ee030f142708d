import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Building2 } from "lucide-react";
import { Link, useParams } from "react-router-dom";
import { sentNotice } from "../announcements/labels";
import { NewAnnouncementButton } from "../announcements/NewAnnouncementButton";
import { ScopeAnnouncements } from "../announcements/ScopeAnnouncements";
import { isServerAdmin, useMe } from "../auth/useMe";
import { Badge } from "../components/Badge";
import { DetailPage } from "../components/DetailPage";
import { PageHeader } from "../components/PageHeader";
import { formatDateTime } from "../lib/format";
import { useMyOrganizations } from "../organizations/useMyOrganizations";
import { projectRoleLabels, projectStatusInfo, type Project } from "../projects/labels";
import { DeleteProjectCard } from "../projects/DeleteProjectCard";
import { ProjectUsage } from "../allocations/ProjectUsage";
import { ProjectDetails } from "../projects/ProjectDetails";
import { ProjectMembers } from "../projects/ProjectMembers";
import { ProjectObservations } from "../projects/ProjectObservations";
import { trpc } from "../trpc";
import { useDocumentTitle } from "../lib/document-title";

export function ProjectPage() {
  const { id = "" } = useParams();
  const project = useQuery(trpc.projects.get.queryOptions({ id }, { staleTime: 0 }));
  return (
    <DetailPage query={project} what="project" backTo="/projects" backText="Projects" backLabel="Back to your projects">
      {(data) => <ProjectView project={data} />}
    </DetailPage>
  );
}

/** The senders of docs/api-contract.md: the project's owner and admins, and server admins (not organization managers). */
const mayAnnounce = (project: Project, serverAdmin: boolean) =>
  serverAdmin || project.myRole === "owner" || project.myRole === "admin" || project.myRole === "serverAdmin";

function ProjectView({ project }: { project: Project }) {
  useDocumentTitle(`${project.name} · Projects`);
  const me = useMe();
  const canAnnounce = mayAnnounce(project, isServerAdmin(me.data));
  const [sent, setSent] = useState<string | null>(null);
  const organizations = useMyOrganizations();
  const organization = project.organizationId ? organizations.data?.items.find((item) => item.id === project.organizationId) : undefined;
  return (
    <>
      <PageHeader
        title={project.name}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <Badge tone={projectStatusInfo[project.status].tone}>{projectStatusInfo[project.status].label}</Badge>
            {project.organizationId ? (
              <span className="inline-flex items-center gap-1">
                <Building2 aria-hidden="true" className="size-3.5" />
                {organization ? (
                  <Link to={`/organizations/${organization.id}`} className="hover:text-indigo-600">
                    {organization.name}
                  </Link>
                ) : (
                  "An organization"
                )}
              </span>
            ) : (
              <span>Personal project</span>
            )}
            <span aria-hidden="true">·</span>
            <span>Created {formatDateTime(project.createdAt)}</span>
          </span>
        }
        actions={
          canAnnounce || project.myRole ? (
            <>
              {canAnnounce ? (
                <NewAnnouncementButton
                  scope="project"
                  scopeId={project.id}
                  scopeName={project.name}
                  onCreated={(announcement) => setSent(sentNotice(announcement))}
                />
              ) : null}
              {project.myRole ? <Badge className="self-center text-sm">You: {projectRoleLabels[project.myRole]}</Badge> : null}
            </>
          ) : null
        }
      />
      <div className="flex flex-col gap-6">
        <ProjectDetails key={project.id} project={project} />
        <ProjectObservations project={project} />
        <ProjectUsage projectId={project.id} />
        <ProjectMembers project={project} />
        <ScopeAnnouncements scope="project" scopeId={project.id} canSend={canAnnounce} notice={sent} />
        {project.myRole === "owner" || project.myRole === "serverAdmin" || isServerAdmin(me.data) ? <DeleteProjectCard project={project} /> : null}
      </div>
    </>
  );
}

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Crown, HardDrive, Mail, Megaphone, ScrollText, Settings, ShieldCheck, Users } from "lucide-react";
import { useParams } from "react-router-dom";
import { sentNotice } from "../announcements/labels";
import { NewAnnouncementButton } from "../announcements/NewAnnouncementButton";
import { ScopeAnnouncements } from "../announcements/ScopeAnnouncements";
import { isServerAdmin, useMe } from "../auth/useMe";
import { Badge } from "../components/Badge";
import { DetailPage } from "../components/DetailPage";
import { PageHeader } from "../components/PageHeader";
import { TabList, TabPanel, useTabParam, type TabItem } from "../components/Tabs";
import { AuditLog } from "../organizations/AuditLog";
import { ExternalStorage } from "../organizations/ExternalStorage";
import { organizationTypeLabels } from "../organizations/labels";
import { OrganizationMembers } from "../organizations/OrganizationMembers";
import { DeleteOrganizationCard } from "../organizations/DeleteOrganizationCard";
import { OrganizationSettings } from "../organizations/OrganizationSettings";
import type { Organization } from "../organizations/types";
import { trpc } from "../trpc";
import { useDocumentTitle } from "../lib/document-title";

type TabId = "members" | "announcements" | "storage" | "audit" | "settings";

export function OrganizationPage() {
  const { id = "" } = useParams();
  const organization = useQuery(trpc.organizations.get.queryOptions({ id }, { staleTime: 0 }));
  return (
    <DetailPage query={organization} what="organization" backTo="/organizations" backText="Organizations" backLabel="Back to your organizations">
      {(data) => <OrganizationView organization={data} />}
    </DetailPage>
  );
}

function OrganizationView({ organization }: { organization: Organization }) {
  useDocumentTitle(`${organization.name} · Organizations`);
  const me = useMe();
  const admin = isServerAdmin(me.data);
  const isOwner = organization.myRole === "owner";
  const canSeeAudit = isOwner || organization.myPermissions.can_manage_members;
  const canEditDetails = isOwner || admin;
  // The senders of docs/api-contract.md: the owner, members who manage members or observatories, server admins.
  const canAnnounce = isOwner || admin || organization.myPermissions.can_manage_members || organization.myPermissions.can_manage_observatories;
  const [sent, setSent] = useState<string | null>(null);
  const tabs: Array<TabItem<TabId>> = [
    { id: "members", label: "Members", icon: Users },
    { id: "announcements", label: "Announcements", icon: Megaphone },
    { id: "storage", label: "External storage", icon: HardDrive },
    ...(canSeeAudit ? [{ id: "audit" as const, label: "Audit log", icon: ScrollText }] : []),
    ...(canEditDetails ? [{ id: "settings" as const, label: "Settings", icon: Settings }] : []),
  ];
  const [tab, setTab] = useTabParam(tabs);
  // The members list gives names to ids in the audit log (ownership changes record ids).
  const members = useQuery(trpc.organizations.members.queryOptions({ id: organization.id }));
  const nameOf = (userId: string) => members.data?.items.find((member) => member.userId === userId)?.name;

  return (
    <>
      <PageHeader
        title={organization.name}
        description={
          <span className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <span className="font-mono text-xs">{organization.shortName}</span>
            <span aria-hidden="true">·</span>
            <span>{organizationTypeLabels[organization.type]}</span>
            <span aria-hidden="true">·</span>
            <a href={`mailto:${organization.contactEmail}`} className="inline-flex items-center gap-1 hover:text-indigo-600">
              <Mail aria-hidden="true" className="size-3.5" />
              {organization.contactEmail}
            </a>
          </span>
        }
        actions={
          <>
            {canAnnounce ? (
              <NewAnnouncementButton
                scope="organization"
                scopeId={organization.id}
                scopeName={organization.name}
                onCreated={(announcement) => {
                  setSent(sentNotice(announcement));
                  setTab("announcements");
                }}
              />
            ) : null}
            {isOwner ? (
              <Badge tone="indigo" className="self-center text-sm">
                <Crown aria-hidden="true" className="size-3.5" /> You are the owner
              </Badge>
            ) : organization.myRole === "member" ? (
              <Badge className="self-center text-sm">You are a member</Badge>
            ) : admin ? (
              <Badge tone="amber" className="self-center text-sm">
                <ShieldCheck aria-hidden="true" className="size-3.5" /> Server administrator
              </Badge>
            ) : null}
          </>
        }
      />
      {organization.description ? <p className="-mt-2 mb-4 max-w-3xl text-sm whitespace-pre-line text-slate-600">{organization.description}</p> : null}
      <p className="-mt-2 mb-6 flex flex-wrap items-center gap-2 text-xs text-slate-500">
        Organization ID
        <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-slate-700">{organization.id}</code>
        <span className="text-slate-400">— give it to an observatory's administrator to get access for your members.</span>
      </p>
      <TabList tabs={tabs} active={tab} onChange={setTab} label="Organization sections" idPrefix="organization" />
      <TabPanel idPrefix="organization" id={tab}>
        {tab === "members" ? <OrganizationMembers organization={organization} /> : null}
        {tab === "announcements" ? <ScopeAnnouncements scope="organization" scopeId={organization.id} canSend={canAnnounce} notice={sent} /> : null}
        {tab === "storage" ? <ExternalStorage organization={organization} /> : null}
        {tab === "audit" ? <AuditLog organizationId={organization.id} nameOf={nameOf} /> : null}
        {tab === "settings" ? (
          <div className="flex flex-col gap-6">
            <OrganizationSettings organization={organization} />
            {isOwner || admin ? <DeleteOrganizationCard organization={organization} /> : null}
          </div>
        ) : null}
      </TabPanel>
    </>
  );
}

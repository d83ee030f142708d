import { useState, type ReactNode } from "react";
import { Plus } from "lucide-react";
import { Link } from "react-router-dom";
import { AnnouncementStatsSummary } from "../announcements/AnnouncementStatsSummary";
import { AnnouncementTable } from "../announcements/AnnouncementTable";
import { CreateAnnouncementDialog } from "../announcements/CreateAnnouncementDialog";
import { sentNotice } from "../announcements/labels";
import { managedSource } from "../announcements/sources";
import type { AnnouncementScope } from "../announcements/types";
import { useAnnouncementDialogs } from "../announcements/useAnnouncementDialogs";
import { isServerAdmin, useMe } from "../auth/useMe";
import { Button } from "../components/Button";
import { PageHeader } from "../components/PageHeader";
import { SuccessNotice } from "../components/SuccessNotice";
import { useDocumentTitle } from "../lib/document-title";

const pageLink = (to: string, text: string) => (
  <Link to={to} className="font-medium text-indigo-600 underline underline-offset-2 hover:no-underline">
    {text}
  </Link>
);

const tables: Array<{ scope: AnnouncementScope; title: string; adminOnly?: boolean; description: string; empty: ReactNode }> = [
  {
    scope: "system",
    title: "System",
    adminOnly: true,
    description: "To users across the server; they must acknowledge before going on.",
    empty: "No system announcements yet. “New system announcement” tells every user, or the ones you pick, about maintenance or outages.",
  },
  {
    scope: "observatory",
    title: "Observatory",
    description: "To everyone with access to an observatory.",
    empty: <>None from observatories you administer. Their owners and administrators send them from the {pageLink("/observatories", "observatory's page")}.</>,
  },
  {
    scope: "organization",
    title: "Organization",
    description: "To the members of an organization.",
    empty: <>None from organizations you manage. Their owners and administrators send them from the {pageLink("/organizations", "organization's page")}.</>,
  },
  {
    scope: "project",
    title: "Project",
    description: "To the members of a project.",
    empty: <>None from projects you run. Their owners and admins send them from the {pageLink("/projects", "project's page")}.</>,
  },
];

/**
 * Announcements for those who send them: statistics, then one table per scope. Server admins see
 * everything and send system announcements; others see the scopes they manage, and send from
 * the observatory, organization or project page.
 */
export function AnnouncementsPage() {
  useDocumentTitle("Announcements");
  const me = useMe();
  const admin = isServerAdmin(me.data);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const dialogs = useAnnouncementDialogs({ onCancelled: (announcement) => setNotice(`${announcement.title} was cancelled.`) });

  return (
    <>
      <PageHeader
        title="Announcements"
        description={
          admin
            ? "Messages to everyone on this server, or to the people of an observatory, organization or project."
            : "Announcements of the observatories, organizations and projects you manage. Send new ones from their pages."
        }
        actions={
          admin ? (
            <Button
              icon={<Plus aria-hidden="true" className="size-4" />}
              onClick={() => {
                setNotice(null);
                setCreating(true);
              }}
            >
              New system announcement
            </Button>
          ) : null
        }
      />
      <SuccessNotice message={notice} className="mb-6" />
      <div className="flex flex-col gap-10">
        <AnnouncementStatsSummary admin={admin} />
        {tables
          .filter((table) => !table.adminOnly || admin)
          .map((table) => (
            <AnnouncementTable
              key={table.scope}
              title={table.title}
              label={`${table.title} announcements`}
              description={table.description}
              showScope={table.scope !== "system"}
              source={managedSource(table.scope)}
              dialogs={dialogs}
              empty={table.empty}
            />
          ))}
      </div>
      {dialogs.dialogs}
      {creating ? (
        <CreateAnnouncementDialog
          destination={{ scope: "system" }}
          onClose={() => setCreating(false)}
          onCreated={(announcement) => {
            setCreating(false);
            setNotice(sentNotice(announcement));
          }}
        />
      ) : null}
    </>
  );
}

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { ArrowRightLeft, History, Hourglass, KeyRound, LayoutDashboard, ListOrdered, Megaphone, MoonStar, Plug, Settings, Users } from "lucide-react";
import { useParams } from "react-router-dom";
import { sentNotice } from "../announcements/labels";
import { NewAnnouncementButton } from "../announcements/NewAnnouncementButton";
import { ScopeAnnouncements } from "../announcements/ScopeAnnouncements";
import { isServerAdmin, useMe } from "../auth/useMe";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { DetailPage } from "../components/DetailPage";
import { PageHeader } from "../components/PageHeader";
import { TabList, TabPanel, useTabParam, type TabItem } from "../components/Tabs";
import { DispatchSwitch } from "../observatories/DispatchSwitch";
import { EditObservatoryDialog } from "../observatories/EditObservatoryDialog";
import { MyPermissions } from "../observatories/MyPermissions";
import { ObservatoryHistory } from "../observatories/ObservatoryHistory";
import { ObservatoryMembers } from "../observatories/ObservatoryMembers";
import { ObservatoryKeys } from "../observatories/ObservatoryKeys";
import { ObservatoryOverview } from "../observatories/ObservatoryOverview";
import { ObservatoryQueue } from "../observatories/ObservatoryQueue";
import { RemoveObservatoryCard } from "../observatories/RemoveObservatoryCard";
import { TonightView } from "../observatories/tonight/TonightView";
import { ownerDescription } from "../observatories/owner";
import { OnlineBadge } from "../observatories/PermissionBadges";
import type { Observatory } from "../observatories/permissions";
import { TransferObservatoryDialog } from "../observatories/TransferObservatoryDialog";
import { useMyOrganizations } from "../organizations/useMyOrganizations";
import { trpc } from "../trpc";
import { ObservatoryAllocations } from "../allocations/ObservatoryAllocations";
import { useDocumentTitle } from "../lib/document-title";
import { useSearchFlag } from "../lib/useSearchFlag";

type TabId = "overview" | "tonight" | "queue" | "allocations" | "members" | "announcements" | "keys" | "permissions" | "history";

const tabs: Array<TabItem<TabId>> = [
  { id: "overview", label: "Overview", icon: LayoutDashboard },
  { id: "tonight", label: "Tonight", icon: MoonStar },
  { id: "queue", label: "Queue", icon: ListOrdered },
  { id: "allocations", label: "Allocations", icon: Hourglass },
  { id: "members", label: "Members", icon: Users },
  { id: "announcements", label: "Announcements", icon: Megaphone },
  { id: "keys", label: "Plugin keys", icon: Plug },
  { id: "permissions", label: "My permissions", icon: KeyRound },
  { id: "history", label: "History", icon: History },
];

export function ObservatoryPage() {
  const { id = "" } = useParams();
  const observatory = useQuery(trpc.observatories.get.queryOptions({ id }, { staleTime: 0 }));
  return (
    <DetailPage query={observatory} what="observatory" backTo="/observatories" backText="Observatories" backLabel="Back to your observatories">
      {(data) => <ObservatoryView observatory={data} />}
    </DetailPage>
  );
}

function ObservatoryView({ observatory }: { observatory: Observatory }) {
  useDocumentTitle(`${observatory.name} · Observatories`);
  const me = useMe();
  const [tab, setTab] = useTabParam(tabs);
  const [transferring, setTransferring] = useState(false);
  // In the address, so the dashboard's checklist can link to the settings.
  const [editing, setEditing] = useSearchFlag("settings");
  const [notice, setNotice] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const mine = useQuery(trpc.observatories.myPermissions.queryOptions({ id: observatory.id }, { staleTime: 0 }));
  const members = useQuery(trpc.observatories.members.queryOptions({ id: observatory.id }));
  const myOrganizations = useMyOrganizations();

  const organizationName = (organizationId: string) =>
    myOrganizations.data?.items.find((organization) => organization.id === organizationId)?.name ??
    members.data?.organizations.find((organization) => organization.organizationId === organizationId)?.name;
  const userName = (userId: string) => (userId === me.data?.id ? `${me.data.name} (you)` : members.data?.users.find((user) => user.userId === userId)?.name);

  const owner = observatory.owner;
  const canTransfer =
    isServerAdmin(me.data) ||
    (owner.kind === "user" && owner.id === me.data?.id) ||
    Boolean(
      owner.kind === "organization" &&
      mine.data?.sources.some((source) => source.kind === "organization" && source.organizationId === owner.id && source.role === "owner"),
    );
  // Observatory owners and administrators (and server admins, who may administer any) send its announcements.
  const canAnnounce = Boolean(mine.data?.can_admin);
  const ownerName =
    owner.kind === "user" && owner.id !== me.data?.id && !owner.name
      ? (userName(owner.id) ?? "Another user")
      : ownerDescription(owner, me.data?.id, organizationName);

  return (
    <>
      <PageHeader
        title={observatory.name}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <OnlineBadge online={observatory.connection.online} />
            <span>Owned by {ownerName}</span>
          </span>
        }
        actions={
          canAnnounce || canTransfer ? (
            <>
              {canAnnounce ? (
                <Button
                  variant="secondary"
                  icon={<Settings aria-hidden="true" className="size-4" />}
                  onClick={() => {
                    setNotice(null);
                    setEditing(true);
                  }}
                >
                  Settings
                </Button>
              ) : null}
              {canAnnounce ? (
                <NewAnnouncementButton
                  scope="observatory"
                  scopeId={observatory.id}
                  scopeName={observatory.name}
                  onCreated={(announcement) => {
                    setSent(sentNotice(announcement));
                    setTab("announcements");
                  }}
                />
              ) : null}
              {canTransfer ? (
                <Button
                  variant="secondary"
                  icon={<ArrowRightLeft aria-hidden="true" className="size-4" />}
                  onClick={() => {
                    setNotice(null);
                    setTransferring(true);
                  }}
                >
                  Transfer ownership
                </Button>
              ) : null}
            </>
          ) : null
        }
      />
      {notice ? (
        <Alert tone="success" className="mb-4">
          {notice}
        </Alert>
      ) : null}
      <DispatchSwitch observatory={observatory} />
      <TabList tabs={tabs} active={tab} onChange={setTab} label="Observatory sections" idPrefix="observatory" />
      <TabPanel idPrefix="observatory" id={tab}>
        {tab === "overview" ? (
          <>
            <ObservatoryOverview observatory={observatory} ownerName={ownerName} />
            <RemoveObservatoryCard observatory={observatory} />
          </>
        ) : null}
        {tab === "tonight" ? <TonightView observatory={observatory} /> : null}
        {tab === "queue" ? <ObservatoryQueue observatoryId={observatory.id} /> : null}
        {tab === "allocations" ? <ObservatoryAllocations observatoryId={observatory.id} canAdmin={Boolean(mine.data?.can_admin)} /> : null}
        {tab === "members" ? <ObservatoryMembers observatory={observatory} /> : null}
        {tab === "keys" ? (
          canAnnounce ? (
            <ObservatoryKeys observatoryId={observatory.id} />
          ) : (
            <Alert tone="info">Only the observatory's administrators manage its plugin keys.</Alert>
          )
        ) : null}
        {tab === "announcements" ? <ScopeAnnouncements scope="observatory" scopeId={observatory.id} canSend={canAnnounce} notice={sent} /> : null}
        {tab === "permissions" ? <MyPermissions observatoryId={observatory.id} organizationName={organizationName} /> : null}
        {tab === "history" ? <ObservatoryHistory observatoryId={observatory.id} names={userName} /> : null}
      </TabPanel>
      {editing && canAnnounce ? (
        <EditObservatoryDialog
          observatory={observatory}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            setNotice("Settings saved.");
          }}
        />
      ) : null}
      {transferring ? (
        <TransferObservatoryDialog
          observatory={observatory}
          onClose={() => setTransferring(false)}
          onTransferred={(name) => {
            setTransferring(false);
            setNotice(`${name} now owns ${observatory.name}.`);
          }}
        />
      ) : null}
    </>
  );
}

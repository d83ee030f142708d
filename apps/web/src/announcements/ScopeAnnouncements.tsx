import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Check, Megaphone, Users } from "lucide-react";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { SuccessNotice } from "../components/SuccessNotice";
import { trpc } from "../trpc";
import { AnnouncementCallout } from "./AnnouncementCallout";
import { AnnouncementTable } from "./AnnouncementTable";
import { scopeLabels } from "./labels";
import { historySource } from "./sources";
import type { ScopedKind } from "./types";
import { useAcknowledge } from "./useAcknowledge";
import { useAnnouncementDialogs } from "./useAnnouncementDialogs";
import { useMarkSeen } from "./useMarkSeen";

/**
 * The announcements section of an observatory, organization or project page: what shows there now
 * (with Acknowledge for the caller's own pending ones) and, for its senders, every announcement
 * it ever had, with recipients and cancellation.
 */
export function ScopeAnnouncements({ scope, scopeId, canSend, notice }: { scope: ScopedKind; scopeId: string; canSend: boolean; notice?: string | null }) {
  const noun = scopeLabels[scope].toLowerCase();
  const active = useQuery(trpc.announcements.listActive.queryOptions({ scope, scopeId }, { staleTime: 0 }));
  const { acknowledge, busyId, error } = useAcknowledge();
  const [cancelledNotice, setCancelledNotice] = useState<string | null>(null);
  const dialogs = useAnnouncementDialogs({ onCancelled: (announcement) => setCancelledNotice(`${announcement.title} was cancelled.`) });
  useMarkSeen((active.data?.items ?? []).filter((announcement) => announcement.acknowledgedAt !== undefined).map((announcement) => announcement.id));

  return (
    <div className="flex flex-col gap-8">
      <SuccessNotice message={cancelledNotice ?? notice ?? null} />
      <section aria-labelledby="scope-announcements-title" className="flex flex-col gap-3">
        <h2 id="scope-announcements-title" className="text-base font-semibold text-slate-900">
          Announcements showing now
        </h2>
        {error ? (
          <p role="alert" className="text-sm text-red-600">
            Could not acknowledge: {error}
          </p>
        ) : null}
        <QueryState
          query={active}
          loading="Loading announcements"
          error="Could not load the announcements"
          isEmpty={(data) => data.items.length === 0}
          empty={
            <EmptyState icon={Megaphone} title="No announcements right now">
              {canSend
                ? `Use “New announcement” to tell everyone in this ${noun} about downtime, outages or safety notices.`
                : `Announcements from this ${noun}'s administrators appear here.`}
            </EmptyState>
          }
        >
          {(data) => (
            <ul aria-label={`Active ${noun} announcements`} className="flex flex-col gap-3">
              {data.items.map((announcement) => (
                <li key={announcement.id}>
                  <AnnouncementCallout
                    announcement={announcement}
                    origin={`From ${announcement.createdByName}`}
                    actions={
                      <>
                        {announcement.acknowledgedAt === null ? (
                          <Button
                            variant="secondary"
                            icon={<Check aria-hidden="true" className="size-4" />}
                            busy={busyId === announcement.id}
                            onClick={() => acknowledge(announcement)}
                          >
                            Acknowledge<span className="sr-only"> {announcement.title}</span>
                          </Button>
                        ) : null}
                        {canSend ? (
                          <Button
                            variant="secondary"
                            aria-label={`Recipients of ${announcement.title}`}
                            icon={<Users aria-hidden="true" className="size-4" />}
                            onClick={() => dialogs.showRecipients(announcement)}
                          >
                            Recipients
                          </Button>
                        ) : null}
                      </>
                    }
                  />
                </li>
              ))}
            </ul>
          )}
        </QueryState>
      </section>
      {canSend ? (
        <AnnouncementTable
          title="All announcements"
          description={`Everything sent to this ${noun}, past included. Only its senders see this.`}
          label={`${scopeLabels[scope]} announcement history`}
          showScope={false}
          source={historySource(scope, scopeId)}
          dialogs={dialogs}
          empty={`Nothing has been announced in this ${noun} yet.`}
        />
      ) : null}
      {dialogs.dialogs}
    </div>
  );
}

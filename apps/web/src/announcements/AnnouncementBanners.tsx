import { useRef } from "react";
import { useQuery } from "@tanstack/react-query";
import { Check, X } from "lucide-react";
import { Link } from "react-router-dom";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { trpc } from "../trpc";
import { AnnouncementCallout } from "./AnnouncementCallout";
import { scopeLabels } from "./labels";
import { scopePath } from "./scopeLinks";
import type { Announcement } from "./types";
import { useMe } from "../auth/useMe";
import { useAcknowledge } from "./useAcknowledge";
import { useDismissedBanners } from "./useDismissedBanners";
import { useMarkSeen } from "./useMarkSeen";

function Origin({ announcement }: { announcement: Announcement }) {
  if (announcement.scope === "system") return <>From the administrators</>;
  const where = `${scopeLabels[announcement.scope]} ${announcement.scopeName ?? ""}`.trim();
  return (
    <>
      {announcement.scopeId ? (
        <Link to={scopePath(announcement.scope, announcement.scopeId)} className="font-medium underline underline-offset-2 hover:no-underline">
          {where}
        </Link>
      ) : (
        where
      )}{" "}
      · from {announcement.createdByName}
    </>
  );
}

/**
 * The dashboard's announcements, coloured by severity: system announcements showing now (already
 * acknowledged in the blocking modal; each can be dismissed, and stays away after a reload), then
 * the caller's unacknowledged observatory, organization and project announcements, each with its
 * Acknowledge button.
 */
export function AnnouncementBanners() {
  const system = useQuery(trpc.announcements.current.queryOptions({ scope: "system" }, { staleTime: 0 }));
  const pending = useQuery(trpc.announcements.pending.queryOptions(undefined, { staleTime: 0 }));
  const { acknowledge, busyId, error } = useAcknowledge();
  const me = useMe();
  const acknowledged = system.data?.items.filter((announcement) => announcement.acknowledgedAt);
  const { isDismissed, dismiss } = useDismissedBanners(
    me.data?.id,
    acknowledged?.map((announcement) => announcement.id),
  );
  // Unacknowledged system announcements are in the blocking modal, not here.
  const systemShown = (acknowledged ?? []).filter((announcement) => !isDismissed(announcement.id));
  const section = useRef<HTMLElement>(null);
  // The dismissed banner takes its button with it: the keyboard goes on from the next banner's first button, or the dashboard's heading.
  const dismissAndRefocus = (id: string) => {
    dismiss(id);
    requestAnimationFrame(() => {
      const next = section.current?.querySelector<HTMLElement>("button, a[href]");
      if (next) next.focus();
      else document.querySelector<HTMLElement>("#main h1")?.focus();
    });
  };
  const scoped = (pending.data?.items ?? []).filter((announcement) => announcement.scope !== "system");
  const shown = [...systemShown, ...scoped];
  useMarkSeen(shown.map((announcement) => announcement.id));
  if (shown.length === 0) return null;
  return (
    <section ref={section} aria-label="Announcements" className="mb-6 flex flex-col gap-3">
      {error ? (
        <p role="alert" className="text-sm text-red-600">
          Could not acknowledge: {error}
        </p>
      ) : null}
      {shown.map((announcement) => (
        <AnnouncementCallout
          key={announcement.id}
          announcement={announcement}
          origin={<Origin announcement={announcement} />}
          actions={
            announcement.scope === "system" ? (
              <>
                <Badge tone="slate">
                  <Check aria-hidden="true" className="size-3" /> Acknowledged
                </Badge>
                <Button variant="ghost" icon={<X aria-hidden="true" className="size-4" />} onClick={() => dismissAndRefocus(announcement.id)}>
                  Dismiss<span className="sr-only"> {announcement.title}</span>
                </Button>
              </>
            ) : (
              <Button
                variant="secondary"
                icon={<Check aria-hidden="true" className="size-4" />}
                busy={busyId === announcement.id}
                onClick={() => acknowledge(announcement)}
              >
                Acknowledge<span className="sr-only"> {announcement.title}</span>
              </Button>
            )
          }
        />
      ))}
    </section>
  );
}

import { useId } from "react";
import { Check, LogOut, Megaphone } from "lucide-react";
import { useSignOut } from "../auth/useSignOut";
import { Button } from "../components/Button";
import { Modal } from "../components/Modal";
import { AnnouncementCallout } from "./AnnouncementCallout";
import { plural } from "./labels";
import type { Announcement } from "./types";
import { useAcknowledge } from "./useAcknowledge";
import { useMarkSeen } from "./useMarkSeen";

const noWayOut = () => {};

/**
 * The modal that stands between a user and the app while system announcements await their
 * acknowledgment. It cannot be dismissed: only acknowledging every one of them closes it.
 * The app behind it is inert (AppLayout), so nothing there can be reached meanwhile.
 */
export function SystemAnnouncementGate({ announcements }: { announcements: Announcement[] }) {
  const titleId = useId();
  const descriptionId = useId();
  const { acknowledge, busyId, error } = useAcknowledge();
  // The only other way out: leave without acknowledging (as on a shared computer).
  const signOut = useSignOut();
  useMarkSeen(announcements.map((announcement) => announcement.id));
  const open = announcements.length > 0;
  return (
    <Modal
      open={open}
      busy={busyId !== undefined}
      dismissible={false}
      labelledBy={titleId}
      describedBy={descriptionId}
      onClose={noWayOut}
      className="max-h-[calc(100dvh-2rem)] max-w-2xl overflow-y-auto"
    >
      {open ? (
        <div className="px-5 pt-5 pb-5">
          <div className="flex items-center gap-3">
            <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
              <Megaphone aria-hidden="true" className="size-5" />
            </span>
            <div>
              <h2 id={titleId} className="text-base font-semibold text-slate-900">
                {announcements.length === 1
                  ? "Announcement from the administrators"
                  : `${plural(announcements.length, "announcement")} from the administrators`}
              </h2>
              <p id={descriptionId} className="text-sm text-slate-500">
                Please read and acknowledge {announcements.length === 1 ? "it" : "each of them"} to continue.
              </p>
            </div>
          </div>
          {error ? (
            <p role="alert" className="mt-4 text-sm text-red-600">
              Could not acknowledge: {error}
            </p>
          ) : null}
          <ul aria-label="Announcements to acknowledge" className="mt-4 flex flex-col gap-3">
            {announcements.map((announcement) => (
              <li key={announcement.id}>
                <AnnouncementCallout
                  announcement={announcement}
                  origin={`From ${announcement.createdByName}`}
                  actions={
                    <Button
                      icon={<Check aria-hidden="true" className="size-4" />}
                      busy={busyId === announcement.id}
                      disabled={busyId !== undefined && busyId !== announcement.id}
                      // Acknowledged, it leaves the list: focus goes on to the next one (the modal's
                      // useFocusAfterBusy); after the last, the modal closes onto the main content.
                      data-focus-next
                      onClick={() => acknowledge(announcement)}
                    >
                      Acknowledge<span className="sr-only"> {announcement.title}</span>
                    </Button>
                  }
                />
              </li>
            ))}
          </ul>
          <div className="mt-4 flex flex-wrap items-center justify-end gap-3 border-t border-slate-100 pt-4 text-sm text-slate-500">
            <span>Not now?</span>
            <Button variant="secondary" icon={<LogOut aria-hidden="true" className="size-4" />} busy={signOut.isPending} onClick={() => signOut.mutate()}>
              Sign out
            </Button>
          </div>
        </div>
      ) : null}
    </Modal>
  );
}

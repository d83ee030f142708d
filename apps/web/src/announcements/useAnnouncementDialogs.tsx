import { useState } from "react";
import { CancelAnnouncementDialog } from "./CancelAnnouncementDialog";
import { RecipientsDrawer } from "./RecipientsDrawer";
import type { Announcement } from "./types";

/**
 * The senders' actions on a listed announcement: the recipients drawer and the cancel dialog.
 * Render `dialogs` once; `showRecipients` and `askCancel` open them for a row.
 */
export function useAnnouncementDialogs({ onCancelled }: { onCancelled?(announcement: Announcement): void } = {}) {
  const [recipientsOf, setRecipientsOf] = useState<Announcement | null>(null);
  const [cancelling, setCancelling] = useState<Announcement | null>(null);
  return {
    showRecipients: setRecipientsOf,
    askCancel: setCancelling,
    dialogs: (
      <>
        {recipientsOf ? <RecipientsDrawer key={recipientsOf.id} announcement={recipientsOf} onClose={() => setRecipientsOf(null)} /> : null}
        {cancelling ? (
          <CancelAnnouncementDialog
            key={cancelling.id}
            announcement={cancelling}
            onClose={() => setCancelling(null)}
            onCancelled={(cancelled) => {
              setCancelling(null);
              onCancelled?.(cancelled);
            }}
          />
        ) : null}
      </>
    ),
  };
}
export type AnnouncementDialogs = ReturnType<typeof useAnnouncementDialogs>;

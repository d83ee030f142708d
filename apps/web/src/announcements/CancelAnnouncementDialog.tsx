import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { TextAreaField } from "../components/TextAreaField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { trpc } from "../trpc";
import { refreshAnnouncements } from "./refresh";
import { refOf, type Announcement } from "./types";

/**
 * Cancelling an active announcement: it stops showing to everyone at once. A reason is required,
 * so the button stays off until one is typed; senders see it in the recipients view.
 */
export function CancelAnnouncementDialog({
  announcement,
  onClose,
  onCancelled,
}: {
  announcement: Announcement;
  onClose(): void;
  onCancelled(announcement: Announcement): void;
}) {
  const [reason, setReason] = useState("");
  const cancel = useMutation(
    trpc.announcements.cancel.mutationOptions({
      onSuccess: async (cancelled) => {
        await refreshAnnouncements();
        onCancelled(cancelled);
      },
    }),
  );
  const problem = formProblem(cancel.error, { codeFields: { REASON_REQUIRED: "reason" } });
  return (
    <FormDialog
      title="Cancel announcement"
      description={
        <>
          <strong className="font-semibold text-slate-700">{announcement.title}</strong> stops showing at once, also to those who have not acknowledged it yet.
        </>
      }
      submitLabel="Cancel announcement"
      submitVariant="danger"
      submitDisabled={!reason.trim()}
      cancelLabel="Keep it"
      busy={cancel.isPending}
      error={generalMessage(problem, ["reason"])}
      onSubmit={() => cancel.mutate({ ref: refOf(announcement), id: announcement.id, reason })}
      onClose={onClose}
    >
      <TextAreaField
        label="Reason"
        required
        rows={3}
        maxLength={2_000}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        error={problem?.fieldErrors.reason}
        hint="Required. Shown with the announcement's recipients."
      />
    </FormDialog>
  );
}

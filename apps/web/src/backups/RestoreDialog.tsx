import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { formatDateTime } from "../lib/format";
import { trpc } from "../trpc";
import { backupDate, type Backup } from "./labels";

/** Restoring replaces every collection: the administrator types the backup's date to confirm. */
export function RestoreDialog({ backup, onStarted, onClose }: { backup: Backup; onStarted(jobId: string): void; onClose(): void }) {
  const [typed, setTyped] = useState("");
  const restore = useMutation(trpc.backups.restore.mutationOptions({ onSuccess: ({ jobId }) => onStarted(jobId) }));
  const expected = backupDate(backup);
  return (
    <FormDialog
      title="Restore this backup?"
      description={
        <>
          <span className="block">All current data is replaced by the backup of {formatDateTime(backup.createdAt)}. Rolled back to that moment:</span>
          <span className="mt-1 block">
            everything written since (accounts, organizations, observatories, projects, observations, file records, announcements, settings), and also the
            sessions and the API and observatory keys created since: people who signed in since must sign in again, and keys made since stop working.
          </span>
          <span className="mt-1 block">
            Kept as they are: the backups, the jobs list, the audit log (the restore is recorded in it), passwords changed since and keys revoked since. Changes
            are refused while it runs, and a quick integrity scan follows.
          </span>
        </>
      }
      submitLabel="Restore"
      submitVariant="danger"
      submitDisabled={typed.trim() !== expected}
      busy={restore.isPending}
      error={restore.isError ? summarizeError(restore.error).message : null}
      onSubmit={() => restore.mutate({ id: backup.id })}
      onClose={onClose}
    >
      <TextField
        label={`Type the backup's date, ${expected}, to confirm`}
        autoComplete="off"
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
        placeholder="YYYY-MM-DD"
      />
    </FormDialog>
  );
}

import { useState, type ChangeEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { formatDateTime } from "../lib/format";
import { formatBytes } from "../observations/labels";
import { queryClient, trpc } from "../trpc";

/** Deletes old backups: days to keep and a minimum to keep, a preview of what goes, then the deletion. */
export function BackupCleanupDialog({ defaults, onClose }: { defaults: { keepDays: number; keepMin: number }; onClose(): void }) {
  const [keepDays, setKeepDays] = useState(String(defaults.keepDays));
  const [keepMin, setKeepMin] = useState(String(defaults.keepMin));
  const preview = useMutation(trpc.backups.cleanup.mutationOptions());
  const remove = useMutation(
    trpc.backups.cleanup.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries(trpc.backups.list.pathFilter()),
    }),
  );
  // A changed field makes the preview stale: it is asked for again before anything is deleted.
  const edit = (set: (value: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
    set(event.target.value);
    preview.reset();
  };
  const input = { keepDays: Number(keepDays), keepMin: Number(keepMin) };
  const valid = /^\d+$/.test(keepDays) && /^\d+$/.test(keepMin);
  const previewed = preview.data && !remove.data ? preview.data.deleted : null;
  const failure = preview.error ?? remove.error;
  return (
    <FormDialog
      title="Delete old backups"
      description="Backups started more than the days given are deleted, their archives with them. The newest verified backup always stays."
      submitLabel={previewed ? `Delete ${previewed.length} backup${previewed.length === 1 ? "" : "s"}` : "Preview"}
      submitVariant={previewed ? "danger" : "primary"}
      submitDisabled={!valid || (previewed !== null && previewed.length === 0) || Boolean(remove.data)}
      busy={preview.isPending || remove.isPending}
      error={failure ? summarizeError(failure).message : null}
      onSubmit={() => (previewed ? remove.mutate(input) : preview.mutate({ ...input, dryRun: true }))}
      onClose={onClose}
      cancelLabel={remove.data ? "Close" : undefined}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Days to keep" inputMode="numeric" value={keepDays} onChange={edit(setKeepDays)} />
        <TextField label="Keep at least" hint="backups, however old" inputMode="numeric" value={keepMin} onChange={edit(setKeepMin)} />
      </div>
      {previewed ? (
        <div role="status" className="text-sm text-slate-700">
          {previewed.length === 0 ? (
            "Nothing is that old: no backup would be deleted."
          ) : (
            <>
              These go:
              <ul className="mt-1 list-disc pl-5">
                {previewed.map((item) => (
                  <li key={item.id}>
                    {formatDateTime(item.createdAt)}, {formatBytes(item.sizeBytes ?? 0)}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      ) : null}
      {remove.data ? (
        <p role="status" className="text-sm text-emerald-700">
          Deleted {remove.data.deleted.length} backup{remove.data.deleted.length === 1 ? "" : "s"}.
        </p>
      ) : null}
    </FormDialog>
  );
}

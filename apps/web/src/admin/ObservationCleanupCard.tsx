import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { CheckboxField } from "../components/CheckboxField";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { useTrackedJob } from "../lib/useTrackedJob";
import { trpc } from "../trpc";

/** What the administrator types to confirm: the cleanup cannot be undone. */
const CLEANUP_CONFIRMATION = "delete all observations";

type Summary = { observations: number; files: number; storageObjects: number };
const describe = (summary: Summary) =>
  `${summary.observations.toLocaleString()} observations, ${summary.files.toLocaleString()} file records and ` +
  `${summary.storageObjects.toLocaleString()} stored images`;

/**
 * Observation data cleanup: a dry run first, which says what goes; then a typed confirmation;
 * then the job's progress and its summary.
 */
export function ObservationCleanupCard() {
  const [typed, setTyped] = useState("");
  const [backupFirst, setBackupFirst] = useState(true);
  const [jobId, setJobId] = useState<string | null>(null);
  const preview = useMutation(trpc.cleanup.observations.mutationOptions());
  const start = useMutation(
    trpc.cleanup.observations.mutationOptions({
      onSuccess: (reply) => {
        if ("jobId" in reply) setJobId(reply.jobId as string);
      },
    }),
  );
  const { job } = useTrackedJob(jobId);
  const previewed = preview.data as Summary | undefined;
  const result = job?.status === "completed" ? (job.result as Summary) : null;
  const running = jobId !== null && !result && job?.status !== "failed";
  return (
    <Card
      title="Observation data cleanup"
      description="Deletes every observation, file record and stored image. Observatories, users, projects, API keys and sessions stay. It cannot be undone."
    >
      <div className="flex flex-col gap-4">
        <div>
          <Button variant="secondary" busy={preview.isPending} onClick={() => preview.mutate({ dryRun: true })}>
            Preview what goes
          </Button>
        </div>
        {preview.isError ? <Alert tone="error">{summarizeError(preview.error).message}</Alert> : null}
        {previewed ? (
          <form
            noValidate
            className="flex flex-col gap-3"
            onSubmit={(event) => {
              event.preventDefault();
              start.mutate({ dryRun: false, createBackup: backupFirst });
            }}
          >
            <p role="status" className="text-sm text-slate-700">
              A cleanup now would delete {describe(previewed)}.
            </p>
            <CheckboxField
              label="Back up first"
              description="The cleanup starts only once the backup is verified; a failed backup deletes nothing."
              checked={backupFirst}
              onChange={setBackupFirst}
            />
            <TextField
              label={`Type “${CLEANUP_CONFIRMATION}” to confirm`}
              autoComplete="off"
              value={typed}
              onChange={(event) => setTyped(event.target.value)}
              className="max-w-sm"
            />
            <div>
              <Button
                type="submit"
                variant="danger"
                icon={<Trash2 aria-hidden="true" className="size-4" />}
                busy={start.isPending || running}
                disabled={typed.trim().toLowerCase() !== CLEANUP_CONFIRMATION}
              >
                Delete observation data
              </Button>
            </div>
          </form>
        ) : null}
        {start.isError ? <Alert tone="error">{summarizeError(start.error).message}</Alert> : null}
        {running && job ? (
          <p role="status" className="text-sm text-slate-700">
            {job.progress.stage === "backup"
              ? "Backing up first; the cleanup starts once the backup is verified…"
              : `Deleting: ${job.progress.stage ?? "starting"}, ${job.progress.done} of ${job.progress.total ?? "?"}…`}
          </p>
        ) : null}
        {result ? <Alert tone="success">Deleted {describe(result)}.</Alert> : null}
        {job?.status === "failed" ? <Alert tone="error">The cleanup failed: {job.error}; run it again to finish it.</Alert> : null}
      </div>
    </Card>
  );
}

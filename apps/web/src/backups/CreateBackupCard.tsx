import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { DatabaseBackup } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { JobProgress } from "../components/JobProgress";
import { summarizeError } from "../lib/errors";
import { formatDateTime } from "../lib/format";
import { useTrackedJob } from "../lib/useTrackedJob";
import { formatBytes } from "../observations/labels";
import { queryClient, trpc } from "../trpc";
import { stageLabel } from "./labels";

/** Starts a backup and follows it to verified; the confirmation names its timestamp and size. */
export function CreateBackupCard() {
  const [started, setStarted] = useState<{ id: string; jobId: string | null; createdAt: string } | null>(null);
  const refresh = () => void queryClient.invalidateQueries(trpc.backups.list.pathFilter());
  const create = useMutation(
    trpc.backups.create.mutationOptions({
      onSuccess: (backup) => {
        setStarted({ id: backup.id, jobId: backup.jobId, createdAt: backup.createdAt });
        refresh();
      },
    }),
  );
  const { job, running } = useTrackedJob(started?.jobId ?? null, (status) => (status === "completed" || status === "failed" ? refresh() : undefined));
  const result = job?.result as { status: string; sizeBytes: number | null } | null | undefined;
  return (
    <Card
      title="Create a backup"
      description={
        "Every collection as of one moment, compressed into object storage with a manifest, then read back and verified. " +
        "Uploaded image files are not included; their file records are."
      }
    >
      <div className="flex flex-col gap-4">
        <div>
          <Button icon={<DatabaseBackup aria-hidden="true" className="size-4" />} busy={create.isPending || running} onClick={() => create.mutate({})}>
            Create backup
          </Button>
        </div>
        {create.isError ? <Alert tone="error">{summarizeError(create.error).message}</Alert> : null}
        {started && running && job ? (
          <JobProgress
            label="Backup progress"
            stage={stageLabel[job.progress.stage ?? ""] ?? "Waiting for a worker"}
            done={job.progress.done}
            total={job.progress.total}
            unit={job.progress.stage === "verify" ? formatBytes : undefined}
          />
        ) : null}
        {started && job?.status === "completed" && result ? (
          <Alert tone="success">
            Backup of {formatDateTime(started.createdAt)} verified: {formatBytes(result.sizeBytes ?? 0)}.
          </Alert>
        ) : null}
        {started && job?.status === "failed" ? <Alert tone="error">The backup failed: {job.error}</Alert> : null}
      </div>
    </Card>
  );
}

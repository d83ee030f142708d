import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Archive } from "lucide-react";
import { Link } from "react-router-dom";
import { Alert } from "../components/Alert";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";
import { JobProgress } from "../components/JobProgress";
import { QueryState } from "../components/QueryState";
import { ActionsCell, DataTable, HeadingsWithActions, td } from "../components/Table";
import { summarizeError } from "../lib/errors";
import { formatShortDateTime } from "../lib/format";
import { useTrackedJob } from "../lib/useTrackedJob";
import { formatBytes } from "../observations/labels";
import { queryClient, trpc } from "../trpc";
import { backupStatusTone, backupTriggerLabel, stageLabel, type Backup } from "./labels";
import { RestoreDialog } from "./RestoreDialog";

/** Every backup with its timestamp, size and status; each can be verified again or restored. */
export function BackupTable() {
  const list = useQuery({
    ...trpc.backups.list.queryOptions(),
    refetchInterval: (query) => (query.state.data?.items.some((backup) => backup.status === "running") ? 3000 : false),
  });
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const [active, setActive] = useState<{ jobId: string; what: "Verification" | "Restore"; backup: Backup } | null>(null);
  const refresh = () => void queryClient.invalidateQueries(trpc.backups.list.pathFilter());
  const { job, running } = useTrackedJob(active?.jobId ?? null, (status) => (status === "completed" || status === "failed" ? refresh() : undefined));
  const verify = useMutation(trpc.backups.verify.mutationOptions());
  const restoreResult = job?.status === "completed" && active?.what === "Restore" ? (job.result as { scanId: string | null } | null) : null;
  return (
    <section aria-labelledby="backups-heading" className="flex flex-col gap-3">
      <h2 id="backups-heading" className="text-base font-semibold text-slate-900">
        Backups
      </h2>
      {verify.isError ? <Alert tone="error">{summarizeError(verify.error).message}</Alert> : null}
      {active && running && job ? (
        <JobProgress
          label={`${active.what} progress`}
          stage={stageLabel[job.progress.stage ?? ""] ?? "Waiting for a worker"}
          done={job.progress.done}
          total={job.progress.total}
          unit={formatBytes}
        />
      ) : null}
      {active && job?.status === "completed" ? (
        <Alert tone="success">
          {active.what === "Verification"
            ? `Verification passed: the backup of ${formatShortDateTime(active.backup.createdAt)} matches its manifest, ` +
              "every collection's rows and checksum."
            : `The backup of ${formatShortDateTime(active.backup.createdAt)} is restored.` +
              (restoreResult ? " A quick integrity scan is checking the restored data." : "")}
        </Alert>
      ) : null}
      {active && job?.status === "failed" ? (
        <Alert tone="error">
          {active.what === "Verification"
            ? `Verification failed for the backup of ${formatShortDateTime(active.backup.createdAt)}: ` +
              `${(job.error ?? "unknown error").replace(/^Verification failed: /, "")}. Do not restore it.`
            : `The restore of the backup of ${formatShortDateTime(active.backup.createdAt)} failed: ${job.error}`}
        </Alert>
      ) : null}
      <QueryState
        query={list}
        loading="Loading backups"
        error="Could not load backups"
        isEmpty={(data) => data.items.length === 0}
        empty={
          <EmptyState icon={Archive} title="No backups yet">
            Create one above, or set a schedule in the{" "}
            <Link to="/admin/settings#backups" className="font-medium text-indigo-600 underline underline-offset-2 hover:no-underline">
              server settings
            </Link>
            .
          </EmptyState>
        }
      >
        {(data) => (
          <DataTable label="Backups" stackOnPhone columns={<HeadingsWithActions names={["Taken", "Size", "Status"]} />}>
            {data.items.map((backup) => (
              <tr key={backup.id}>
                <td className={td} data-label="Taken">
                  {formatShortDateTime(backup.createdAt)}
                  <span className="block text-xs text-slate-500">{backupTriggerLabel[backup.trigger]}</span>
                </td>
                <td className={`${td} tabular-nums`} data-label="Size">
                  {backup.sizeBytes === null ? "—" : formatBytes(backup.sizeBytes)}
                </td>
                <td className={td} data-label="Status">
                  <Badge tone={backupStatusTone[backup.status]}>{backup.status}</Badge>
                  {backup.error ? <span className="mt-1 block max-w-md text-xs break-words text-red-600">{backup.error}</span> : null}
                </td>
                <ActionsCell>
                  <Button
                    variant="secondary"
                    disabled={backup.status === "running" || running}
                    onClick={() => verify.mutate({ id: backup.id }, { onSuccess: ({ jobId }) => setActive({ jobId, what: "Verification", backup }) })}
                    aria-label={`Verify the backup of ${formatShortDateTime(backup.createdAt)}`}
                  >
                    Verify
                  </Button>
                  <Button
                    variant="danger"
                    disabled={!(backup.status === "verified" || backup.status === "completed") || running}
                    onClick={() => setRestoring(backup)}
                    aria-label={`Restore the backup of ${formatShortDateTime(backup.createdAt)}`}
                  >
                    Restore
                  </Button>
                </ActionsCell>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryState>
      {restoring ? (
        <RestoreDialog
          backup={restoring}
          onClose={() => setRestoring(null)}
          onStarted={(jobId) => {
            setActive({ jobId, what: "Restore", backup: restoring });
            setRestoring(null);
          }}
        />
      ) : null}
    </section>
  );
}

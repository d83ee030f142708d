import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { Wrench } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { summarizeError } from "../lib/errors";
import { useTrackedJob } from "../lib/useTrackedJob";
import { queryClient, trpc } from "../trpc";

interface RepairResult {
  repaired: number;
  skipped: number;
  skippedIssues: Array<{ issueId: string; code: string; message: string }>;
}

/**
 * Repairs every open auto-fixable issue of a scan as a job: a confirmation naming how many
 * documents change, then the job's progress (pushed over /ws, polled as a fallback) and its result.
 */
export function BulkRepair({ scanId, fixable }: { scanId: string; fixable: number }) {
  const [confirming, setConfirming] = useState(false);
  const [jobId, setJobId] = useState<string | null>(null);
  const start = useMutation(
    trpc.integrity.bulkRepair.mutationOptions({
      onSuccess: ({ jobId: started }) => {
        setConfirming(false);
        setJobId(started);
      },
    }),
  );
  const { job: data, finished } = useTrackedJob(jobId, (status) => {
    if (status === "completed") void queryClient.invalidateQueries(trpc.integrity.issues.pathFilter());
  });
  const result = data?.status === "completed" ? (data.result as RepairResult | null) : null;
  // Nothing left to repair (another administrator was quicker): a confirmation of "0" has nothing to confirm.
  if (fixable === 0 && confirming) setConfirming(false);
  const percent = data?.progress.total ? Math.round((data.progress.done / data.progress.total) * 100) : 0;

  return (
    <div className="flex flex-col gap-2">
      <div>
        <Button
          icon={<Wrench aria-hidden="true" className="size-4" />}
          disabled={fixable === 0 || (jobId !== null && !finished)}
          onClick={() => setConfirming(true)}
        >
          {fixable === 0 ? "No auto-fixable issues to repair" : `Repair ${fixable} auto-fixable issue${fixable === 1 ? "" : "s"}`}
        </Button>
      </div>
      {jobId && data && !finished ? (
        <div
          role="progressbar"
          aria-label="Bulk repair progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          aria-valuetext={`${data.progress.done} of ${data.progress.total ?? "?"} issues`}
          className="h-2 max-w-md overflow-hidden rounded-full bg-slate-100"
        >
          <div className="h-full rounded-full bg-indigo-600 transition-[width]" style={{ width: `${Math.max(percent, 5)}%` }} />
        </div>
      ) : null}
      {result ? (
        <Alert tone="success">
          Repaired {result.repaired} issue{result.repaired === 1 ? "" : "s"}.
          {result.skipped > 0
            ? ` Skipped ${result.skipped} whose documents changed since the scan or that a person must look at; scan again to see them as they are now.`
            : ""}
        </Alert>
      ) : null}
      {data?.status === "failed" ? <Alert tone="error">The bulk repair failed: {data.error}</Alert> : null}
      <ConfirmDialog
        open={confirming}
        title={`Repair ${fixable} issue${fixable === 1 ? "" : "s"}?`}
        confirmLabel={`Repair ${fixable}`}
        busy={start.isPending}
        error={start.isError ? summarizeError(start.error).message : null}
        onCancel={() => setConfirming(false)}
        onConfirm={() => start.mutate({ id: scanId })}
      >
        Up to {fixable} document{fixable === 1 ? "" : "s"} or stored object{fixable === 1 ? "" : "s"} will change, each as its issue&apos;s proposed change
        says. Orphan objects move to quarantine (deleted after 30 days); every repair is written to the audit log. A document that changed since the scan is
        left alone.
      </ConfirmDialog>
    </div>
  );
}

import { useState } from "react";
import { ListChecks } from "lucide-react";
import { useSearchParams } from "react-router-dom";
import { Alert } from "../components/Alert";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState } from "../components/EmptyState";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { SelectField } from "../components/SelectField";
import { SuccessNotice } from "../components/SuccessNotice";
import { JobTable } from "../jobs/JobTable";
import { jobKindLabel, jobStatuses, kindOf, type Job, type JobStatus } from "../jobs/labels";
import { useDocumentTitle } from "../lib/document-title";
import { summarizeError } from "../lib/errors";
import { useRealtimeEvent, useRealtimeReconnect } from "../lib/realtime";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { queryClient, trpc, trpcClient } from "../trpc";

const PAGE_SIZE = 25;

/** System → Jobs: every long job (scans, repairs, backups, restores, cleanups, email fan-outs), and the way out of one that will not finish. */
export function JobsPage() {
  useDocumentTitle("Jobs");
  // The filters live in the URL, so a reload or a shared link shows the same list.
  const [params, setParams] = useSearchParams();
  const kind = params.get("kind") ?? "";
  const status = (jobStatuses as string[]).includes(params.get("status") ?? "") ? (params.get("status") as JobStatus) : undefined;
  const setFilter = (name: string, value: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );
  const input = { limit: PAGE_SIZE, ...(kind ? { kind } : {}), ...(status ? { status } : {}) };
  const { query: jobs, items } = useCursorPages(trpc.admin.jobs.infiniteQueryKey(input), (cursor, signal) =>
    trpcClient.admin.jobs.query(pageInput(input, cursor), { signal }),
  );
  const refresh = () => void queryClient.invalidateQueries(trpc.admin.jobs.pathFilter());
  useRealtimeEvent("job.progress", refresh);
  // Progress sent while the socket was down was never heard.
  useRealtimeReconnect(refresh);
  const [notice, setNotice] = useState<string | null>(null);
  const cancel = useConfirmedMutation({
    mutation: trpc.admin.cancelJob.mutationOptions(),
    variables: (job: Job) => ({ id: job.id }),
    onSuccess: (job: Job) => {
      setNotice(`${kindOf(job.kind)} ${job.id} was cancelled, and what it held was released.`);
      refresh();
      void queryClient.invalidateQueries(trpc.maintenance.status.pathFilter());
    },
  });
  const target = cancel.target;

  return (
    <>
      <PageHeader
        title="Jobs"
        description={
          "Long work people and schedules started, with its progress, result or error. A job whose every attempt ended without finishing " +
          "(a worker that was killed) fails by itself within a minute; cancel one that is stuck to end it now."
        }
      />
      <div className="flex flex-col gap-4">
        <div className="flex flex-col gap-3 sm:flex-row">
          <SelectField label="Kind" className="sm:w-64" value={kind} onChange={(event) => setFilter("kind", event.target.value)}>
            <option value="">All kinds</option>
            {Object.entries(jobKindLabel).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
          <SelectField label="Status" className="sm:w-48" value={status ?? ""} onChange={(event) => setFilter("status", event.target.value)}>
            <option value="">Any status</option>
            {jobStatuses.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </SelectField>
        </div>
        <SuccessNotice message={notice} />
        <QueryState
          query={jobs}
          loading="Loading jobs"
          error="Could not load jobs"
          isEmpty={() => items.length === 0}
          empty={
            <EmptyState icon={ListChecks} title={kind || status ? "No job matches these filters" : "No jobs yet"}>
              Scans, repairs, backups, restores, cleanups and announcement emails appear here when they start.
            </EmptyState>
          }
        >
          {() => <JobTable jobs={items} onCancel={(job) => cancel.ask(job)} />}
        </QueryState>
        <LoadMoreButton query={jobs} />
        {jobs.isFetchNextPageError ? <Alert tone="error">Could not load more jobs: {summarizeError(jobs.error).message}</Alert> : null}
      </div>
      <ConfirmDialog
        {...cancel.dialog}
        title={target ? `Cancel this ${kindOf(target.kind).toLowerCase()}?` : ""}
        confirmLabel="Cancel the job"
        cancelLabel="Keep it"
      >
        {target ? (
          <>
            It becomes failed, naming you, and what it holds is released at once
            {target.kind === "backup_restore" ? ": maintenance ends and writes are accepted again; the data stays as it is now." : "."} A running attempt stops
            at its next progress report. This is recorded in the audit log.
          </>
        ) : null}
      </ConfirmDialog>
    </>
  );
}

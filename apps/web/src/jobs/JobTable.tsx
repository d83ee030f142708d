import { Link } from "react-router-dom";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { JobProgress } from "../components/JobProgress";
import { ActionsCell, DataTable, HeadingsWithActions, td } from "../components/Table";
import { formatShortDateTime } from "../lib/format";
import { isUnderWay, jobStatusTone, kindOf, stageOf, subjectLink, type Job } from "./labels";

/** What a finished job produced, in a line: the counts of its result, or its error. */
function outcome(job: Job) {
  if (job.status === "failed") return <span className="block max-w-md text-xs break-words text-red-700">{job.error ?? "Failed"}</span>;
  if (job.status !== "completed" || !job.result || typeof job.result !== "object") return null;
  const counts = Object.entries(job.result as Record<string, unknown>).filter(([, value]) => typeof value === "number" || typeof value === "string");
  if (counts.length === 0) return null;
  return (
    <span className="block max-w-md text-xs break-words text-slate-500">
      {counts
        .slice(0, 5)
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join(" · ")}
    </span>
  );
}

/** Long jobs with their progress, result or error; those under way can be cancelled. */
export function JobTable({ jobs, onCancel }: { jobs: Job[]; onCancel(job: Job): void }) {
  return (
    <DataTable label="Jobs" stackOnPhone columns={<HeadingsWithActions names={["Job", "Status", "Progress", "Started", "Finished"]} />}>
      {jobs.map((job) => {
        const link = job.subjectId ? subjectLink[job.kind]?.(job.subjectId) : undefined;
        return (
          <tr key={job.id}>
            <td className={td} data-label="Job">
              <span className="font-medium text-slate-900">{link ? <Link to={link}>{kindOf(job.kind)}</Link> : kindOf(job.kind)}</span>
              <span className="block font-mono text-xs break-all text-slate-500">{job.id}</span>
            </td>
            <td className={td} data-label="Status">
              <Badge tone={jobStatusTone[job.status]}>{job.status}</Badge>
              {outcome(job)}
            </td>
            <td className={`${td} min-w-48`} data-label="Progress">
              {isUnderWay(job) ? (
                <JobProgress label={`Progress of ${kindOf(job.kind)} ${job.id}`} stage={stageOf(job)} done={job.progress.done} total={job.progress.total} />
              ) : (
                <span className="text-slate-500 tabular-nums">
                  {job.progress.done.toLocaleString()}
                  {job.progress.total === null ? "" : ` / ${job.progress.total.toLocaleString()}`}
                </span>
              )}
            </td>
            <td className={td} data-label="Started">
              {formatShortDateTime(job.startedAt)}
              <span className="block text-xs text-slate-500">{job.startedByName ? `by ${job.startedByName}` : "by the system"}</span>
            </td>
            <td className={td} data-label="Finished">
              {formatShortDateTime(job.finishedAt)}
            </td>
            <ActionsCell>
              {isUnderWay(job) ? (
                <Button variant="danger" onClick={() => onCancel(job)} aria-label={`Cancel ${kindOf(job.kind)} ${job.id}`}>
                  Cancel
                </Button>
              ) : null}
            </ActionsCell>
          </tr>
        );
      })}
    </DataTable>
  );
}

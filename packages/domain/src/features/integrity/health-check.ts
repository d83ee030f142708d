import type { IntegrityIssueDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { previousCronTime } from "../../platform/system/cron";
import { countRunningServers } from "../../platform/system/server-presence";
import { readServerSettings } from "../system";
import { observatoryCreatedAtSql } from "../observatories";

type HealthIssue = Omit<IntegrityIssueDoc, "scanId">;

const systemIssue = (code: string, severity: HealthIssue["severity"], message: string, collection = "system", documentId = "system"): HealthIssue => ({
  severity,
  // The five issue types of docs/api-contract.md have no "health"; these are the system's operational status.
  type: "status",
  collection,
  documentId,
  code,
  message,
  autoFixable: false,
  fix: null,
  status: "open",
  documentUpdatedAt: null,
});

/** Every code the health stage reports: a retried stage replaces its earlier findings. */
export const HEALTH_CODES = [
  "DATABASE_CONNECTIONS_HIGH",
  "STORAGE_UNREACHABLE",
  "WEBSOCKET_DOWN",
  "OBSERVATORY_DISCONNECTED",
  "JOB_QUEUE_STALE",
  "JOBS_FAILED",
  "BACKUP_OVERDUE",
];

/** How long a scheduled backup may take before its absence is reported. */
const BACKUP_GRACE_MS = 2 * 3_600_000;

/** Jobs due this long ago and still not taken mean no worker is taking work. */
const STALE_QUEUE_MINUTES = 5;
/** An observatory offline this long while it has work waiting is reported. */
const DISCONNECTED_HOURS = 24;

/**
 * The scan's "check system health" stage: database (connection headroom), object storage, the
 * WebSocket servers (server processes), observatories disconnected with work waiting, a stale job
 * queue, failed jobs, and a last verified backup older than its schedule says it should be.
 */
export async function healthFindings(deps: Deps): Promise<HealthIssue[]> {
  const issues: HealthIssue[] = [];
  const [connections] = await deps.db.execute<{ used: number; max: number }>(sql`
    select (select count(*)::int from pg_stat_activity) as used, current_setting('max_connections')::int as max`);
  if (connections && connections.used > connections.max * 0.8)
    issues.push(systemIssue("DATABASE_CONNECTIONS_HIGH", "warning", `${connections.used} of ${connections.max} database connections are in use`));

  try {
    await deps.storage.ping({ signal: AbortSignal.timeout(5000) });
  } catch (error) {
    issues.push(systemIssue("STORAGE_UNREACHABLE", "critical", `Object storage ${deps.storage.endpoint} does not answer: ${(error as Error).message}`));
  }

  if ((await countRunningServers(deps)) === 0)
    issues.push(
      systemIssue("WEBSOCKET_DOWN", "critical", "No server process is running: the API and the WebSocket channels (users and observatories) are down"),
    );

  for (const row of await disconnectedWithStuckWork(deps)) {
    const waiting = `${row.waiting} observations waiting that no connected observatory can take`;
    const message = `${row.name} has been offline since ${row.last_seen ?? "it was created"} with ${waiting}`;
    issues.push(systemIssue("OBSERVATORY_DISCONNECTED", "warning", message, "observatories", row.id));
  }

  const [queue] = await deps.db.execute<{ stale: number; failed: number }>(sql`
    select count(*) filter (
             where locked_at is null and attempts < max_attempts and run_at < now() - make_interval(mins => ${STALE_QUEUE_MINUTES})
           )::int as stale,
           count(*) filter (where attempts >= max_attempts)::int as failed
      from graphile_worker.jobs`);
  // The spec's severity table puts stale message queues under info (low urgency).
  if (queue?.stale)
    issues.push(systemIssue("JOB_QUEUE_STALE", "info", `${queue.stale} jobs have waited more than ${STALE_QUEUE_MINUTES} minutes: is a worker running?`));
  if (queue?.failed) issues.push(systemIssue("JOBS_FAILED", "info", `${queue.failed} jobs failed every attempt and wait in the queue for a person`));

  const overdue = await backupOverdue(deps);
  if (overdue) issues.push(overdue);

  return issues;
}

/**
 * The observatories offline for `DISCONNECTED_HOURS` with work that waits for them: observations pending or assigned there,
 * and pending ones with candidates that name them (contract, "Network scheduling"), of which no other candidate is
 * connected. One with another candidate connected is not stuck: the plan runs it there (an assigned one goes back to
 * pending after `REASSIGN_AFTER_MINUTES` and is planned again).
 */
async function disconnectedWithStuckWork(deps: Deps) {
  const offlineSince = new Date(deps.now().getTime() - DISCONNECTED_HOURS * 3_600_000).toISOString();
  return deps.db.execute<{ id: string; name: string; last_seen: string | null; waiting: number }>(sql`
    select o.id, o.doc->>'name' as name, o.doc->'connection'->>'lastSeenAt' as last_seen, count(w.id)::int as waiting
      from observatories o
      join observations w on w.status in ('pending', 'assigned')
       and (w.observatory_id = o.id or (w.observatory_id is null and w.status = 'pending' and w.candidate_observatory_ids @> array[o.id]))
     where (o.doc->'connection'->>'online')::boolean is not true
       and coalesce((o.doc->'connection'->>'lastSeenAt')::timestamptz, ${observatoryCreatedAtSql("o")}) < ${offlineSince}::timestamptz
       and not exists (
         select 1 from observatories other
          where other.id = any(w.candidate_observatory_ids) and other.id <> o.id
            and (other.doc->'connection'->>'online')::boolean and other.doc->>'removedAt' is null)
     group by o.id limit 1000`);
}

/** With a backup schedule: the newest verified backup must have started at or after the schedule's last run (given time to finish). */
async function backupOverdue(deps: Deps): Promise<HealthIssue | undefined> {
  const { backupSchedule } = await readServerSettings(deps.db);
  if (!backupSchedule) return undefined;
  const due = previousCronTime(backupSchedule, new Date(deps.now().getTime() - BACKUP_GRACE_MS));
  const [newest] = await deps.db.execute<{ id: string; started_at: string }>(sql`
    select id, doc->>'startedAt' as started_at from backups where status = 'verified' order by doc->>'startedAt' desc limit 1`);
  if (newest && Date.parse(newest.started_at) >= due.getTime() - 60_000) return undefined;
  return newest
    ? systemIssue(
        "BACKUP_OVERDUE",
        "warning",
        `The last verified backup started ${newest.started_at}, before the scheduled run of ${due.toISOString()} (${backupSchedule})`,
        "backups",
        newest.id,
      )
    : systemIssue("BACKUP_OVERDUE", "critical", `No backup has been verified, though backups are scheduled (${backupSchedule})`, "backups", "backups");
}

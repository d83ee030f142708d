import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { holdSessionLock, lockHeldCondition, LOCK_SPACES, type SessionLock } from "../system/session-lock";
import { registeredJobs } from "./define-job";
import { inTransaction, type InTransaction } from "../transaction";

/** A worker beats every few seconds; one silent this long is taken for dead. */
const STALE_WORKER_SECONDS = 20;

/**
 * A worker holds this lock for as long as it runs, taken before it starts taking jobs: a killed
 * worker's lock goes with its connection at once, so the others find it dead within seconds.
 */
export function holdWorkerPresence(options: { deps: Deps; workerId: string }): Promise<SessionLock> {
  return holdSessionLock({ deps: options.deps, space: LOCK_SPACES.workerPresence, key: options.workerId });
}

const workerAlive = sql.raw(lockHeldCondition({ space: LOCK_SPACES.workerPresence, keySql: "hashtext(h.worker_id)" }));

/**
 * The worker's heartbeat, recorded only while its presence lock is held: a beat after a restart of
 * PostgreSQL thus says that the worker holds its lock again (recoverStaleWorkers relies on it).
 */
export async function beatWorkerHeartbeat(options: { deps: Deps; workerId: string; graphileWorkerIds: string[] }) {
  const { deps, workerId } = options;
  const ids = sql`array(select jsonb_array_elements_text(${JSON.stringify(options.graphileWorkerIds)}::jsonb))`;
  const held = sql.raw(lockHeldCondition({ space: LOCK_SPACES.workerPresence, keySql: "hashtext(h.worker_id)" }));
  await deps.db.execute(sql`
    insert into worker_heartbeats (worker_id, graphile_worker_ids)
    select h.worker_id, ${ids} from (select ${workerId}::text as worker_id) h where ${held}
    on conflict (worker_id) do update set last_seen_at = now(), graphile_worker_ids = excluded.graphile_worker_ids`);
}

/**
 * Frees what dead workers held, so their work resumes now rather than after graphile-worker's
 * four-hour lock timeout and the five-minute email claim lease: every worker that no longer holds
 * its presence lock, or whose heartbeat is older than STALE_WORKER_SECONDS, has its jobs unlocked
 * (`force_unlock_workers`) and its email claims given back, and its heartbeat removed. Each live worker runs this every few seconds;
 * deleting the heartbeat row first makes two of them racing free each dead worker once.
 *
 * A restart of PostgreSQL ends every session, so every presence lock goes at once though no worker
 * died: a worker whose last beat is older than PostgreSQL's start is judged by its heartbeat alone
 * (it beats again, once it holds its lock again), and no heartbeat counts as stale before
 * STALE_WORKER_SECONDS have passed since that start. `self`, the caller, is alive whatever its lock
 * says: its own jobs are never freed because its own connection was cut.
 */
export async function recoverStaleWorkers(options: { deps: Deps; self?: string }): Promise<{ workers: string[]; releasedClaims: number }> {
  const { deps } = options;
  return inTransaction(deps, async (t) => {
    const stale = await t.tx.execute<{ worker_id: string; graphile_worker_ids: string[] }>(sql`
      delete from worker_heartbeats h
       where h.worker_id is distinct from ${options.self ?? null}::text
         and (greatest(h.last_seen_at, pg_postmaster_start_time()) < now() - make_interval(secs => ${STALE_WORKER_SECONDS})
              or (h.last_seen_at > pg_postmaster_start_time() and not ${workerAlive}))
       returning worker_id, graphile_worker_ids`);
    const graphileIds = stale.flatMap((row) => row.graphile_worker_ids);
    if (graphileIds.length === 0) return { workers: stale.map((row) => row.worker_id), releasedClaims: 0 };
    const ids = sql`array(select jsonb_array_elements_text(${JSON.stringify(graphileIds)}::jsonb))`;
    const [unlocked] = await t.tx.execute<{ count: number }>(sql`
      select count(*)::int as count from graphile_worker._private_jobs where locked_by = any(${ids})`);
    const held = await t.tx.execute<{ id: string }>(sql`select id::text from graphile_worker._private_jobs where locked_by = any(${ids})`);
    await t.tx.execute(sql`select graphile_worker.force_unlock_workers(${ids})`);
    await removeSupersededJobs(
      t,
      held.map((row) => row.id),
    );
    // Wakes every worker now, as a new job would, instead of at its next poll.
    await t.tx.execute(sql`select pg_notify('jobs:insert', ${JSON.stringify({ count: Math.max(1, unlocked?.count ?? 1) })})`);
    const released = await t.tx.execute(sql`
      update announcement_recipients
         set email_state = 'pending', email_claimed_at = null, email_claimed_by = null
       where email_state = 'sending' and email_claimed_by = any(${ids})
       returning id`);
    t.logger.warn(
      { workers: stale.map((row) => row.worker_id), graphileWorkerIds: graphileIds, releasedClaims: released.length },
      "freed the jobs and email claims of workers that stopped beating",
    );
    return { workers: stale.map((row) => row.worker_id), releasedClaims: released.length };
  });
}

/**
 * A job of an always-keyed task (`supersededByKey` in its definition) that graphile-worker took its key from while a dead worker ran it: a newer job of
 * the same key was added meanwhile (a dispatch asked again, a newer message to the recipient), and
 * graphile-worker then sets the running job's attempts to its maximum so that it never runs
 * again. Unlocked, it would stay in the table for good, failed without an error. The newer job
 * does its work (a dispatch of the same observatory, a delivery of the same file), so it is
 * removed; what only it carried is queued again by its definition's `requeue` (an email job's own message).
 * Found by `pnpm test:topology`, for send_email first and then for dispatch_observatory.
 */
async function removeSupersededJobs(t: InTransaction, jobIds: string[]) {
  if (jobIds.length === 0) return;
  // Only tasks that are always added with a key: a job without one whose last attempt was killed
  // looks the same (attempts spent, no error, no key) and must stay, so the tracked job fails.
  const alwaysKeyed = registeredJobs().filter((job) => job.supersededByKey !== undefined);
  if (alwaysKeyed.length === 0) return;
  const removed = await t.tx.execute<{ task: string; payload: Record<string, unknown> }>(sql`
    delete from graphile_worker._private_jobs j
     using graphile_worker._private_tasks k
     where k.id = j.task_id and k.identifier in ${alwaysKeyed.map((job) => job.name)}
       and j.locked_by is null and j.attempts >= j.max_attempts and j.last_error is null and j.key is null
       and j.id::text = any(array(select jsonb_array_elements_text(${JSON.stringify(jobIds)}::jsonb)))
    returning k.identifier as task, j.payload::jsonb as payload`);
  for (const { task, payload } of removed) await alwaysKeyed.find((job) => job.name === task)?.supersededByKey?.requeue?.({ t, payload });
  if (removed.length > 0)
    t.logger.warn({ tasks: removed.map((row) => row.task) }, "removed jobs a newer job of their key had replaced while a dead worker ran them");
}

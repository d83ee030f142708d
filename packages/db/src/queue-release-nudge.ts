import type { Sql } from "postgres";

/**
 * graphile-worker frees a job queue (`email:<recipient>`, `push:<user>`) when it completes the job
 * that held it, but looks for its next job before that completion has committed: the queue's next
 * job then waits for the poll interval, in every process. This trigger sends the `jobs:insert`
 * NOTIFY graphile-worker listens on when a queue is freed with a job waiting in it. A NOTIFY is
 * delivered when its transaction commits, so the runners it wakes see the queue free. The random
 * part keeps PostgreSQL from folding the NOTIFYs of one transaction into one (as graphile-worker's
 * own do). Recreated after graphile-worker's migrations, which own the table.
 *
 * The trigger's look for a waiting job reads the freed queue's jobs by an index of its own:
 * graphile-worker indexes waiting jobs by priority and run_at only, so the look read every waiting
 * job of the table, on every completion of a queued job (a backlog of 100,000 emails made each
 * completion cost about 10 ms of PostgreSQL's time, and the backlog's whole delivery quadratic).
 */
export async function installQueueReleaseNudge(connection: Sql): Promise<void> {
  await connection.unsafe(`
    create or replace function graphile_worker.meridian_nudge_freed_queue() returns trigger
    language plpgsql as $$
    begin
      if exists (
        select 1 from graphile_worker._private_jobs j
        where j.job_queue_id = new.id and j.is_available and j.run_at <= now()
      ) then
        perform pg_notify('jobs:insert', '{"r":' || random()::text || ',"count":1}');
      end if;
      return null;
    end $$;
    do $$
    begin
      -- Created once, like the trigger: CREATE INDEX IF NOT EXISTS would still lock the jobs'
      -- table against running workers at every start.
      if to_regclass('graphile_worker.meridian_available_jobs_by_queue') is null then
        create index meridian_available_jobs_by_queue on graphile_worker._private_jobs (job_queue_id, run_at)
          where is_available and job_queue_id is not null;
      end if;
      -- Created once: replacing it at every start would lock the queues' table under running workers.
      if not exists (
        select 1 from pg_trigger
        where tgname = 'meridian_nudge_freed_queue' and tgrelid = 'graphile_worker._private_job_queues'::regclass
      ) then
        create trigger meridian_nudge_freed_queue
          after update of locked_at on graphile_worker._private_job_queues
          for each row when (old.locked_at is not null and new.locked_at is null)
          execute function graphile_worker.meridian_nudge_freed_queue();
      end if;
    end $$;
  `);
}

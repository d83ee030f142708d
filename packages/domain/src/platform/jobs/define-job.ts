import { z } from "zod";
import type { Deps } from "../deps";
import type { InTransaction } from "../transaction";
import type { JobDoc, StoredDocument } from "@meridian/db";

/** What a job's `run` gets besides its payload: graphile-worker's view of the attempt, in the parts jobs use. */
export interface JobAttempt {
  job: { attempts: number; max_attempts: number; locked_by?: string | null };
  logger: { debug(message: string): void; info(message: string): void };
}

export interface JobContext {
  deps: Deps;
  attempt: JobAttempt;
}

/** What a tracked job holds while it runs, given back once it will not finish (`jobs/job-endings.ts`). */
export type JobRelease = (options: {
  deps: Deps;
  job: StoredDocument<JobDoc>;
  reason: string;
  payload: Record<string, unknown> | null;
}) => Promise<void | "after the attempt">;

/**
 * A job that a person starts and follows: it has a record in the `jobs` collection whose `kind` is the
 * job's name, always (migration 0027 renamed the rows written under an older one).
 */
export interface TrackedJob {
  /** Gives back what it holds beyond its own record (after its last attempt, a dead worker, or a cancel). */
  release?: JobRelease;
  /** Queued again by a sweep of its own while work is due: never taken for abandoned. */
  selfHealing?: boolean;
  /** The payload field that names the job's subject when the payload carries no `jobId` (a scan's `scanId`). */
  subjectField?: string;
  /** The release waits until no attempt runs any more (an attempt may still write what the release removes). */
  releaseAfterAttempt?: boolean;
  /** Its payload's `then.cleanupJobId` names a tracked job that waits for it: cancelling that one ends this one too. */
  carriesFollowUp?: boolean;
}

/**
 * One background job, whole: its name and payload schema, its schedule, its attempts, key and
 * queue, what runs, and how it ends when it will not finish. The worker's task list, the crontab and
 * the recovery of dead workers are derived from the registry of these (`src/job-registry.ts`).
 */
export interface JobDefinition<Name extends string = string, Schema extends z.ZodType = z.ZodType> {
  name: Name;
  payload: Schema;
  /** A cron expression (graphile-worker's crontab syntax, UTC) for a job that runs on a schedule. */
  schedule?: string;
  /** graphile-worker's `max_attempts` when queued with `addJob` (10 unless said). */
  maxAttempts?: number;
  /** The job key when it can be told from the payload (a waiting job of the same key is replaced). */
  jobKey?(payload: z.output<Schema>): string;
  /** The queue when it can be told from the payload: its jobs run one at a time, in order. */
  queueName?(payload: z.output<Schema>): string;
  /** graphile-worker's flags (a runner whose `forbiddenFlags` names one leaves the job to another). */
  flags?: string[];
  run(payload: z.output<Schema>, context: JobContext): Promise<unknown>;
  /** When the last attempt threw (`lastAttemptCatch`): the record of what it worked on says so. */
  afterLastAttempt?(payload: z.output<Schema>, context: { deps: Deps; reason: string }): Promise<unknown>;
  tracked?: TrackedJob;
  /**
   * A job without a tracked record whose status lives with what it works on: how that ends when every
   * attempt ended without finishing (killed, or thrown past `run`'s own handling).
   */
  giveUp?(options: { deps: Deps; jobId: string; payload: Record<string, unknown>; reason: string }): Promise<unknown>;
  /**
   * An always-keyed job: one a dead worker ran while a newer job took its key is removed by the recovery
   * (the newer one does its work); `requeue` gives back what only it carried.
   */
  supersededByKey?: { requeue?(options: { t: InTransaction; payload: Record<string, unknown> }): Promise<void> };
}

/** A job as defined: `kind` is the name its tracked records carry. */
export type DefinedJob<Name extends string = string, Schema extends z.ZodType = z.ZodType> = JobDefinition<Name, Schema> & {
  kind: Name;
};

export function defineJob<Name extends string, Schema extends z.ZodType>(definition: JobDefinition<Name, Schema>): DefinedJob<Name, Schema> {
  return { ...definition, kind: definition.name };
}

/**
 * The registered jobs, by name: `src/job-registry.ts` fills it in (declaration merging), so `addJob`
 * and the tracked kinds are typed by every feature's jobs while this runtime imports none of them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface JobRegistry {}

export type JobName = keyof JobRegistry & string;
export type JobPayload<Name extends JobName> = JobRegistry[Name] extends { payload: infer Schema extends z.ZodType } ? z.input<Schema> : never;
/** The `kind` of a tracked job's record: its job's name. */
export type TrackedJobKind = { [Name in JobName]: JobRegistry[Name] extends { kind: infer Kind extends string } ? Kind : never }[JobName];

/** A tracked kind, checked against the registry where it is written in SQL or a record. */
export const trackedKind = <Kind extends TrackedJobKind>(kind: Kind): Kind => kind;

const registered = new Map<string, DefinedJob>();

/** Called once by the registry: from then on the runtime knows every job. */
export function registerJobs(jobs: readonly DefinedJob[]) {
  for (const job of jobs) {
    const known = registered.get(job.name);
    if (known && known !== job) throw new Error(`two jobs are named ${job.name}`);
    registered.set(job.name, job);
  }
}

export const registeredJobs = (): DefinedJob[] => [...registered.values()];

export function registeredJob(name: string): DefinedJob {
  const job = registered.get(name);
  if (!job) throw new Error(`no job is named ${name}`);
  return job;
}

/** graphile-worker's crontab, one line per scheduled job. */
export const crontabOf = (jobs: readonly DefinedJob[]): string => jobs.flatMap((job) => (job.schedule ? [`${job.schedule} ${job.name}`] : [])).join("\n");

/** What graphile-worker passes a scheduled job: `{_cron: {ts, backfilled}}`; read with `tickOf` where it matters. */
export const scheduledPayload = z.unknown();

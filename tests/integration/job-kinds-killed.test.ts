import { randomUUID } from "node:crypto";
import { backupsCollection, filesCollection, integrityScansCollection, jobsCollection, observationsCollection } from "@meridian/db";
import { runAnnouncementMaintenance } from "@meridian/domain/announcements";
import { jobRegistry } from "@meridian/domain/job-registry";
import { queueDispatch, queueNetworkPlan } from "@meridian/domain/observations";
import {
  enqueueEmail,
  inTransaction,
  reconcileTrackedJobs,
  recordJobStarted,
  recoverStaleWorkers,
  type InTransaction,
  type JobName,
} from "@meridian/domain/platform";
import { queuedFrameAnalysis } from "@meridian/rules/frames";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { fileDocument, observationDocument } from "../support/observation-documents";
import { startSmtpCapture } from "../support/smtp-capture";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";
import { scanDoc } from "../support/integrity-scan-doc";

/**
 * Every job kind of the registry (`jobRegistry`), walked through "every attempt killed" as
 * graphile-worker leaves it: the job's attempts spent, locked by a worker whose process died. The
 * recovery frees it and the reconcile sweep ends it; then what the kind owns has ended (failed with
 * the reason, and told, where it owns a status), or, for a kind that owns none, nothing is held
 * and the kind's next job runs. A kind added to the registry without a walk here fails the first case.
 * The long jobs' kills with their subjects (a backup, a restore's maintenance, a scan) are in jobs-killed-attempts.test.ts.
 */
const ADMIN = { email: "job-kinds-killed-admin@example.com", password: "job kinds killed admin password" };
const KILLED = /Every attempt \((\d+) of \1\) ended without finishing; the last: its worker stopped \(killed or lost\)/;

let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let owner: Account;
let observatoryId: string;
let projectId: string;
const { must } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;

beforeAll(async () => {
  capture = await startSmtpCapture();
  // The worker runs in the server's process: it runs each kind's next job, and sends what is still to be sent.
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", SMTP_URL: capture.url }));
  owner = await createAccount(server);
  observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Walked" } }, 201)) as { id: string }).id;
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Walked" } }, 201)) as { id: string }).id;
});
afterAll(async () => {
  await server?.stop();
  await capture?.stop();
});

type Payload = Record<string, unknown>;

interface Walk {
  /** Why the kind owns no status: then the walk checks that nothing is held and that its next job runs. */
  ownsNoStatus?: string;
  /** Work done before the scene (over HTTP, say), outside its transaction. */
  prepare?: () => Promise<void>;
  /**
   * Writes what the job works on and queues the job as its producer does, in one transaction; answers what picks its
   * graphile-worker job out. For a kind that owns no status, run again for its next job.
   */
  scene: (t: InTransaction, name: JobName) => Promise<Payload>;
  /** What the kind owns has ended. */
  ended?: () => Promise<void>;
}

const queue = (t: InTransaction, name: JobName, payload: Payload, options: { maxAttempts?: number; jobKey?: string } = {}) =>
  t.tx.execute(sql`select graphile_worker.add_job(${name}, ${JSON.stringify(payload)}::json, max_attempts := ${options.maxAttempts ?? 25},
                   job_key := ${options.jobKey ?? null}::text)`);

/** A job recorded in `jobs` (what the admin's job list shows) with the graphile-worker job that does its work. */
function trackedJob(name: JobName, kind: string, payloadOf: (jobId: string) => Payload, maxAttempts: number): Walk {
  let jobId = "";
  return {
    scene: async (t) => {
      jobId = (await recordJobStarted({ t, kind, startedBy: null, subjectId: `subject-${randomUUID()}`, now: new Date() })).id;
      const payload = payloadOf(jobId);
      await queue(t, name, payload, { maxAttempts });
      return payload;
    },
    ended: async () => {
      const job = await jobsCollection.get(deps().db, jobId);
      expect(job!.doc).toMatchObject({ status: "failed", error: expect.stringMatching(KILLED) });
    },
  };
}

/** A scheduled kind: its run is queued as graphile-worker's cron queues it (no key, no queue), with the tick it is for. */
const scheduled = (reason: string): Walk => ({
  ownsNoStatus: reason,
  scene: async (t, name) => {
    const payload = { _cron: { ts: new Date().toISOString(), backfilled: false } };
    await queue(t, name, payload);
    return payload;
  },
});

let announcementId = "";
let fileId = "";

const walks: { [Name in JobName]: Walk } = {
  send_email: (() => {
    let first = "";
    let second = "";
    const to = `killed-email-${randomUUID().slice(0, 8)}@example.com`;
    return {
      scene: async (t) => {
        first = await enqueueEmail({ t, kind: "test", to, subject: "The one every attempt died on", text: "First" });
        second = await enqueueEmail({ t, kind: "test", to, subject: "Written after it", text: "Second" });
        const [job] = await t.tx.execute<{ payload: Payload }>(sql`
          select payload::jsonb as payload from graphile_worker._private_jobs where key = ${`email-to:${to}`}`);
        return job!.payload;
      },
      ended: async () => {
        const status = async (id: string) =>
          (
            await deps().db.execute<{ status: string; last_error: string | null }>(sql`
            select status, doc->>'lastError' as last_error from email_outbox where id = ${id}`)
          )[0]!;
        expect(await status(first)).toMatchObject({ status: "failed", last_error: expect.stringMatching(KILLED) });
        // The recipient's later message is not held back by it.
        await until("the later message to be sent", async () => (await status(second)).status === "sent");
        expect(capture.messages.filter((mail) => mail.to.includes(to)).map((mail) => mail.subject)).toEqual(["Written after it"]);
      },
    };
  })(),
  send_push: {
    ownsNoStatus: "one push to one user: nothing records it, and one not sent is not sent again later (it would come late)",
    scene: async (t) => {
      const payload = { userId: owner.id, title: "Killed", message: "Every attempt", url: null, priority: 0 };
      await queue(t, "send_push", payload);
      return payload;
    },
  },
  analyse_frame: (() => {
    let frameFileId = "";
    return {
      scene: async (t) => {
        const observation = await observationsCollection.insert(t.tx, observationDocument({ projectId, observatoryId, ownerId: owner.id }, { name: "Framed" }));
        const analysisId = `analysis-${randomUUID()}`;
        const frame = { ...queuedFrameAnalysis(), analysisId };
        frameFileId = (await filesCollection.insert(t.tx, fileDocument(observation.id, observatoryId, "killed.fits", { frame }))).id;
        const payload = { fileId: frameFileId, analysisId };
        await queue(t, "analyse_frame", payload, { maxAttempts: 3, jobKey: `frame:${frameFileId}` });
        return payload;
      },
      ended: async () => {
        const file = await filesCollection.get(deps().db, frameFileId);
        expect(file!.doc.frame).toMatchObject({ status: "failed", failure: expect.stringMatching(KILLED), analysedAt: expect.any(String) });
      },
    };
  })(),
  deliver_file: {
    scene: async (t) => {
      const observation = await observationsCollection.insert(t.tx, observationDocument({ projectId, observatoryId, ownerId: owner.id }, { name: "Walked" }));
      const delivery = { destinationId: "dst_walked", status: "pending" as const, attempts: 5, remotePath: null, deliveredAt: null, error: null };
      fileId = (await filesCollection.insert(t.tx, fileDocument(observation.id, observatoryId, "walked.fits", { deliveries: [delivery] }))).id;
      const payload = { fileId, destinationId: "dst_walked" };
      await queue(t, "deliver_file", payload, { maxAttempts: 5 });
      return payload;
    },
    ended: async () => {
      const file = await filesCollection.get(deps().db, fileId);
      expect(file!.doc.deliveries).toEqual([expect.objectContaining({ status: "failed", attempts: 5, error: expect.stringMatching(KILLED) })]);
      const told = await deps().db.execute<{ text: string }>(sql`
        select doc->>'text' as text from email_outbox where doc->>'kind' = 'file_delivery_failed' and doc->>'to' = ${owner.email}`);
      expect(told).toEqual([{ text: expect.stringMatching(KILLED) }]);
    },
  },
  announcement_emails: {
    // A fan-out's tracked job is not failed: the minute sweep queues it again while any of its messages is due.
    prepare: async () => {
      const startsAt = new Date(Date.now() + 86_400_000).toISOString();
      const created = (await must(
        `/projects/${projectId}/motd`,
        { method: "POST", token: owner.token, json: { title: "Killed fan-out", message: "Mended", severity: "info", deliveryType: "email", startsAt } },
        201,
      )) as { id: string };
      announcementId = created.id;
    },
    scene: async (t) => {
      // Its start comes now: the fan-out's job is due, and killed.
      await t.tx.execute(sql`
        update announcements set starts_at = now() - interval '1 minute',
               doc = jsonb_set(doc, '{startsAt}', to_jsonb(to_char((now() - interval '1 minute') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
         where id = ${announcementId}`);
      return { announcementId };
    },
    ended: async () => {
      await runAnnouncementMaintenance({ deps: deps() });
      const job = await until("the fan-out to complete", async () => {
        const [row] = await deps().db.execute<{ status: string }>(sql`
          select status from jobs where kind = 'announcement_emails' and subject_id = ${announcementId}`);
        return row?.status === "completed" && row;
      });
      expect(job).toMatchObject({ status: "completed" });
      expect(capture.messages.some((mail) => mail.to.includes(owner.email) && mail.subject === "Killed fan-out")).toBe(true);
    },
  },
  announcement_started: {
    ownsNoStatus: "the realtime event and observatory message of an announcement's start: the announcement is shown by its own times",
    scene: async (t) => {
      const payload = { announcementId: `ann_missing_${randomUUID().slice(0, 8)}` };
      await queue(t, "announcement_started", payload, { jobKey: `announcement-started:${String(payload.announcementId)}` });
      return payload;
    },
  },
  dispatch_observatory: {
    ownsNoStatus: "asks whether an observatory is free for its next observation; the minute sweep asks again for every connected one",
    scene: async (t) => {
      await queueDispatch({ t, observatoryId });
      return { observatoryId };
    },
  },
  network_plan: {
    ownsNoStatus: "makes the network plan again; a killed planning rolls back whole, and the next change or the minute's sweep asks again",
    scene: async (t) => {
      await queueNetworkPlan({ t });
      return {};
    },
  },
  backup_create: (() => {
    let jobId = "";
    let backupId = "";
    return {
      scene: async (t) => {
        backupId = backupsCollection.newId();
        jobId = (await recordJobStarted({ t, kind: "backup_create", startedBy: null, subjectId: backupId, now: new Date() })).id;
        await backupsCollection.insert(
          t.tx,
          {
            status: "running",
            trigger: "scheduled",
            objectKey: `backups/${backupId}.tar.gz`,
            sizeBytes: null,
            manifest: null,
            jobId,
            startedBy: null,
            startedAt: new Date().toISOString(),
            finishedAt: null,
            verifiedAt: null,
            error: null,
          },
          backupId,
        );
        const payload = { jobId, backupId, then: null };
        await queue(t, "backup_create", payload, { maxAttempts: 3 });
        return payload;
      },
      ended: async () => {
        expect((await jobsCollection.get(deps().db, jobId))!.doc).toMatchObject({ status: "failed", error: expect.stringMatching(KILLED) });
        expect((await backupsCollection.get(deps().db, backupId))!.doc).toMatchObject({ status: "failed", error: expect.stringMatching(KILLED) });
        // A scheduled backup that failed is told to the server admins.
        const told = await deps().db.execute<{ kind: string; text: string }>(sql`
          select doc->>'kind' as kind, doc->>'text' as text from email_outbox where doc->>'to' = ${ADMIN.email} and doc->>'text' like ${`%${backupId}%`}`);
        expect(told).toEqual([{ kind: expect.any(String), text: expect.stringMatching(KILLED) }]);
      },
    };
  })(),
  backup_verify: trackedJob("backup_verify", "backup_verify", (jobId) => ({ jobId, backupId: `bkp_${jobId}` }), 3),
  backup_restore: trackedJob("backup_restore", "backup_restore", (jobId) => ({ jobId, backupId: `bkp_${jobId}`, actorId: null }), 3),
  integrity_repair: trackedJob("integrity_repair", "integrity_repair", (jobId) => ({ jobId, scanId: `scan_${jobId}`, issueIds: null }), 5),
  observation_cleanup: trackedJob("observation_cleanup", "observation_cleanup", (jobId) => ({ jobId, cutoff: new Date().toISOString(), actorId: null }), 5),
  integrity_scan: (() => {
    let jobId = "";
    let scanId = "";
    return {
      scene: async (t) => {
        scanId = integrityScansCollection.newId();
        jobId = (await recordJobStarted({ t, kind: "integrity_scan", startedBy: null, subjectId: scanId, now: new Date() })).id;
        const options = { collections: [], deepScan: false, checkStorage: false, checkHealth: false, limitPerCollection: null, includeTestData: false };
        await integrityScansCollection.insert(
          t.tx,
          scanDoc({
            kind: "quick",
            options,
            status: "running",
            jobId,
          }),
          scanId,
        );
        await queue(t, "integrity_scan", { scanId }, { maxAttempts: 5 });
        return { scanId };
      },
      ended: async () => {
        expect((await jobsCollection.get(deps().db, jobId))!.doc).toMatchObject({ status: "failed", error: expect.stringMatching(KILLED) });
        expect((await integrityScansCollection.get(deps().db, scanId))!.doc).toMatchObject({ status: "failed", error: expect.stringMatching(KILLED) });
      },
    };
  })(),
  announcements_maintenance: scheduled("a sweep: expires announcements and queues due fan-outs again, every minute"),
  prune_rate_limits: scheduled("pruning: the next run removes what this one would have"),
  prune_sessions: scheduled("pruning: the next run removes what this one would have"),
  prune_expired_links: scheduled("pruning: the next run removes what this one would have"),
  api_key_expiry_notices: scheduled("marks each key noticed as it emails, so the next hourly run emails those this one did not"),
  prune_email_outbox: scheduled("pruning: the next run removes what this one would have"),
  prune_audit_log: scheduled("pruning: the next run removes what this one would have"),
  prune_announcements: scheduled("pruning: the next run removes what this one would have"),
  prune_observatory_history: scheduled("pruning: the next run removes what this one would have"),
  prune_integrity_scans: scheduled("pruning: the next run removes what this one would have"),
  prune_tracked_jobs: scheduled("pruning: the next run removes what this one would have"),
  prune_realtime_events: scheduled("pruning: the next run removes what this one would have"),
  purge_quarantine: scheduled("pruning: the next run deletes what this one would have"),
  abort_stale_uploads: scheduled("pruning: the next run aborts what this one would have"),
  backup_schedule: scheduled("starts a backup as a tracked job, which has its own ending; the next minute's run starts one still due"),
  integrity_schedule: scheduled("starts scans as tracked jobs, which have their own ending; the next minute's run starts one still due"),
  observations_maintenance: scheduled("a sweep over what is due now; the next minute's run does it"),
  observations_failover: scheduled("a sweep over what is due now, each move in its own transaction; the next minute's run does it"),
  refresh_analytics: scheduled("recomputes a summary from the tables; the next minute's run does it"),
  reconcile_jobs: scheduled("the sweep itself; the next minute's run (and every recovery) does it"),
};

const graphileJobs = (name: JobName, payload: Payload) =>
  deps().db.execute<{ id: string; attempts: number; max_attempts: number; locked_by: string | null; last_error: string | null }>(sql`
    select g.id::text, g.attempts, g.max_attempts, g.locked_by, g.last_error
      from graphile_worker._private_jobs g join graphile_worker._private_tasks k on k.id = g.task_id
     where k.identifier = ${name} and g.payload::jsonb @> ${JSON.stringify(payload)}::jsonb`);

/**
 * The scene graphile-worker leaves when every attempt was killed: the job's attempts spent, still locked by a
 * worker whose process died (its heartbeat left behind, its presence lock gone with it). Answers the payload.
 */
async function killEveryAttempt(name: JobName, walk: Walk) {
  const dead = `killed-${name}-${randomUUID().slice(0, 8)}`;
  await walk.prepare?.();
  return inTransaction(deps(), async (t) => {
    const payload = await walk.scene(t, name);
    const killed = await t.tx.execute(sql`
      update graphile_worker._private_jobs g set attempts = g.max_attempts, locked_by = ${dead}, locked_at = now()
        from graphile_worker._private_tasks k
       where k.id = g.task_id and k.identifier = ${name} and g.payload::jsonb @> ${JSON.stringify(payload)}::jsonb
      returning g.id`);
    expect(killed.length).toBeGreaterThan(0);
    await t.tx.execute(sql`insert into worker_heartbeats (worker_id, graphile_worker_ids) values (${dead}, array[${dead}]::text[])`);
    return payload;
  });
}

describe("every attempt of a job killed, for every kind of job", () => {
  it("has a walk for every kind in the registry, and a reason for each that owns no status", () => {
    expect(Object.keys(walks).sort()).toEqual(Object.keys(jobRegistry).sort());
    for (const walk of Object.values(walks)) expect(walk.ownsNoStatus === undefined ? walk.ended : walk.ownsNoStatus).toBeTruthy();
  });

  it.each(Object.keys(walks) as JobName[])(
    "%s: ends what it owns, or leaves nothing held and runs its next job",
    async (name) => {
      const walk = walks[name];
      const payload = await killEveryAttempt(name, walk);
      await recoverStaleWorkers({ deps: deps() });
      await reconcileTrackedJobs({ deps: deps() });
      // No job of the kind is held by the dead worker any more.
      expect((await graphileJobs(name, payload)).filter((job) => job.locked_by !== null && job.attempts >= job.max_attempts)).toEqual([]);
      await walk.ended?.();
      if (walk.ownsNoStatus === undefined) return;
      const next = await inTransaction(deps(), (t) => walk.scene(t, name));
      await until(
        `the next ${name} job to run to its end`,
        async () => {
          const waiting = (await graphileJobs(name, next)).filter((job) => job.attempts < job.max_attempts);
          const failed = waiting.find((job) => job.last_error !== null);
          if (failed) throw new Error(`the next ${name} job failed: ${failed.last_error}`);
          return waiting.length === 0;
        },
        { timeoutMs: 60_000 },
      );
    },
    90_000,
  );
});

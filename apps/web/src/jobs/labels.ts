import type { BadgeTone } from "../components/Badge";
import type { RouterOutputs } from "../organizations/types";
import { stageLabel as backupStageLabel } from "../backups/labels";

export type Job = RouterOutputs["admin"]["jobs"]["items"][number];
export type JobStatus = Job["status"];

export const jobStatuses: JobStatus[] = ["queued", "running", "completed", "failed"];
export const jobStatusTone: Record<JobStatus, BadgeTone> = { queued: "slate", running: "sky", completed: "emerald", failed: "red" };

/** What each kind of long job does, in words; an unknown kind shows as it is. */
export const jobKindLabel: Record<string, string> = {
  announcement_emails: "Announcement emails",
  integrity_scan: "Integrity scan",
  integrity_repair: "Bulk repair",
  backup_create: "Backup",
  backup_verify: "Backup verification",
  backup_restore: "Restore",
  observation_cleanup: "Observation cleanup",
};

export const kindOf = (kind: string) => jobKindLabel[kind] ?? kind;

/** Where a job's subject is looked at. */
export const subjectLink: Record<string, (subjectId: string) => string> = {
  integrity_scan: (id) => `/admin/integrity?scan=${encodeURIComponent(id)}`,
  integrity_repair: (id) => `/admin/integrity?scan=${encodeURIComponent(id)}`,
  backup_create: () => "/admin/backups",
  backup_verify: () => "/admin/backups",
  backup_restore: () => "/admin/backups",
  announcement_emails: () => "/announcements",
};

const stages: Record<string, string> = {
  ...backupStageLabel,
  sending: "Sending",
  scanning: "Scanning collections",
  storage: "Checking object storage",
  checksums: "Reading objects back",
  health: "Checking system health",
  repairing: "Repairing",
  objects: "Deleting stored files",
  records: "Deleting records",
  backup: "Waiting for its backup",
};

export const stageOf = (job: Pick<Job, "status" | "progress">) =>
  job.progress.stage ? (stages[job.progress.stage] ?? job.progress.stage) : job.status === "queued" ? "Waiting for a worker" : "Starting";

/** Can still be cancelled. */
export const isUnderWay = (job: Pick<Job, "status">) => job.status === "queued" || job.status === "running";

import {
  cleanUpBackups,
  getBackup,
  listBackups,
  RestoreRefused,
  runBackup,
  runBackupVerification,
  runRestore,
  startBackup,
  startBackupVerification,
  startRestore,
} from "@meridian/domain/backups";
import { previewObservationCleanup, runObservationCleanup, startObservationCleanup } from "@meridian/domain/cleanup";
import { AppError, endJobForGood, type Deps, type SystemActor } from "@meridian/domain/platform";
import { endMaintenance, readMaintenance } from "@meridian/domain/system";
import { Option, type Command } from "commander";
import { followJobToEnd } from "./follow";
import { formatBytes, table, type Output } from "./output";

export interface CommandContext {
  openDeps(): Promise<Deps>;
  output: Output;
  actor: SystemActor;
  json(): boolean;
  print(value: unknown, human: () => string): void;
  whole(value: string): number;
}

/** Runs a tracked job's work here and now, with a progress bar fed from its `jobs` record; returns the record once the job has ended. */
const followJob = (context: CommandContext, deps: Deps, jobId: string, label: string, work: () => Promise<unknown>) =>
  followJobToEnd({ output: context.output, showProgress: !context.json(), deps, jobId, label, work });

const failedJob = (what: string, error: string | null) => new AppError("INTERNAL", `${what} failed: ${error ?? "unknown error"}`);

/** `backup create|list|show|verify|restore|cleanup` and `cleanup-observations`: the admin API's backup and cleanup operations. */
export function addBackupCommands(program: Command, context: CommandContext) {
  const { print, actor } = context;
  const backup = program.command("backup").description("create, list, verify and restore backups, and delete old ones");

  backup
    .command("create")
    .description("back up every collection here and now, then read it back; exits 1 when it fails, 3 when another backup runs")
    .action(async () => {
      const deps = await context.openDeps();
      const started = await startBackup({ deps, actor: null, trigger: "manual" });
      const job = await followJob(context, deps, started.jobId!, "backing up", async () => {
        try {
          await runBackup({ deps, jobId: started.jobId!, backupId: started.id, then: null });
        } catch (error) {
          await endJobForGood({ deps, jobId: started.jobId!, reason: String((error as Error).message) });
          throw error;
        }
      });
      const done = await getBackup({ deps, backupId: started.id });
      if (job.status !== "completed") throw failedJob(`Backup ${done.id}`, done.error ?? job.error);
      print(done, () => `Backup ${done.id} of ${done.createdAt}: ${formatBytes(done.sizeBytes)}, ${done.status}`);
    });

  backup
    .command("list")
    .description("every backup, newest first")
    .action(async () => {
      const { items } = await listBackups({ deps: await context.openDeps() });
      print(
        items.map(({ manifest: _manifest, ...summary }) => summary),
        () =>
          table(
            ["ID", "TAKEN", "SIZE", "STATUS"],
            items.map((item) => [item.id, item.createdAt, formatBytes(item.sizeBytes), item.status]),
            "No backups yet.",
          ),
      );
    });

  backup
    .command("show <backupId>")
    .description("one backup with its manifest")
    .action(async (backupId: string) => {
      const found = await getBackup({ deps: await context.openDeps(), backupId });
      print(found, () =>
        [
          `Backup ${found.id} of ${found.createdAt}: ${formatBytes(found.sizeBytes)}, ${found.status}`,
          "",
          table(
            ["COLLECTION", "ROWS", "SIZE", "SHA-256"],
            // A version 2 archive hashes each section of a part; a collection read in ranges has several.
            (found.manifest?.collections ?? []).map((part) => [
              part.name,
              part.rows,
              formatBytes(part.bytes),
              "sha256" in part ? part.sha256 : `${part.sections} section${part.sections === 1 ? "" : "s"}`,
            ]),
            "No manifest (the backup did not finish).",
          ),
        ].join("\n"),
      );
    });

  backup
    .command("verify <backupId>")
    .description("read a backup back against its manifest; exits 1 when it does not match")
    .action(async (backupId: string) => {
      const deps = await context.openDeps();
      const { jobId } = await startBackupVerification({ deps, actor, backupId });
      const job = await followJob(context, deps, jobId, "verifying", () => runBackupVerification({ deps, jobId, backupId }));
      const checked = await getBackup({ deps, backupId });
      if (job.status !== "completed") throw failedJob(`Verification of ${backupId}`, checked.error);
      print(checked, () => `Backup ${backupId} verified`);
    });

  backup
    .command("restore <backupId>")
    .description("replace ALL current data with the backup's (writes answer 503 meanwhile); needs --yes")
    .option("--yes", "confirm that current data is replaced")
    .action(async (backupId: string, flags: { yes?: boolean }) => {
      if (!flags.yes) throw new AppError("VALIDATION_FAILED", "A restore replaces all current data: run it again with --yes");
      const deps = await context.openDeps();
      const { jobId } = await startRestore({ deps, actor, backupId });
      const job = await followJob(context, deps, jobId, "restoring", async () => {
        try {
          await runRestore({ deps, jobId, backupId, actorId: null });
        } catch (error) {
          await endJobForGood({ deps, jobId, reason: String((error as Error).message) });
          if (!(error instanceof RestoreRefused)) throw error;
        }
      });
      if (job.status !== "completed") throw failedJob(`Restore of ${backupId}`, job.error);
      print(job.result, () => `Restored backup ${backupId}; a quick integrity scan was started`);
    });

  backup
    .command("cleanup")
    .description("delete backups older than --keep-days, never the newest verified one")
    .requiredOption("--keep-days <days>", "days to keep", context.whole)
    .option("--keep-min <n>", "keep at least this many usable backups", context.whole)
    .option("--dry-run", "list what would be deleted")
    .action(async (flags: { keepDays: number; keepMin?: number; dryRun?: boolean }) => {
      const result = await cleanUpBackups({
        deps: await context.openDeps(),
        actor,
        input: { keepDays: flags.keepDays, keepMin: flags.keepMin, dryRun: flags.dryRun },
      });
      print(result, () =>
        [
          `${result.dryRun ? "Would delete" : "Deleted"} ${result.deleted.length} backup${result.deleted.length === 1 ? "" : "s"}.`,
          ...(result.deleted.length > 0
            ? [
                "",
                table(
                  ["ID", "TAKEN", "SIZE"],
                  result.deleted.map((item) => [item.id, item.createdAt, formatBytes(item.sizeBytes)]),
                  "",
                ),
              ]
            : []),
        ].join("\n"),
      );
    });

  const maintenance = program.command("maintenance").description("whether a restore holds the server in maintenance (writes answer 503)");
  maintenance.command("status", { isDefault: true }).action(async () => {
    const status = await readMaintenance({ db: (await context.openDeps()).db });
    print(status, () => (status.active ? `Maintenance since ${status.since}: ${status.reason}` : "No maintenance"));
  });
  maintenance
    .command("off")
    .description("end a maintenance whose restore will not finish (its workers are gone); never while a restore runs")
    .action(async () => {
      const deps = await context.openDeps();
      await endMaintenance({ db: deps.db });
      print(await readMaintenance({ db: deps.db }), () => "Maintenance ended: writes are accepted again");
    });

  program
    .command("cleanup-observations")
    .description("delete every observation, file record and stored image; --dry-run counts them; needs --yes otherwise")
    .option("--dry-run", "count what would go, delete nothing")
    .addOption(new Option("--backup", "back up first; the cleanup runs only once the backup is verified"))
    .option("--yes", "confirm the deletion")
    .action(async (flags: { dryRun?: boolean; backup?: boolean; yes?: boolean }) => {
      const deps = await context.openDeps();
      if (flags.dryRun) {
        const summary = await previewObservationCleanup(deps);
        print(summary, () => `Would delete ${summary.observations} observations, ${summary.files} file records, ${summary.storageObjects} stored objects`);
        return;
      }
      if (!flags.yes) throw new AppError("VALIDATION_FAILED", "The cleanup cannot be undone: run it again with --yes (or --dry-run first)");
      // The cutoff is taken as the cleanup starts, before its backup: the backup holds every observation the cleanup deletes.
      const { jobId, cutoff, backup } = await startObservationCleanup({ deps, actor, createBackup: flags.backup });
      const backupId = backup?.id ?? null;
      if (backup) {
        const then = { cleanupJobId: jobId, cutoff, actorId: null };
        const backupJob = await followJob(context, deps, backup.jobId!, "backing up", () =>
          runBackup({ deps, jobId: backup.jobId!, backupId: backup.id, then }),
        );
        if (backupJob.status !== "completed") throw failedJob("The backup before the cleanup", backupJob.error);
      }
      const job = await followJob(context, deps, jobId, "deleting", () => runObservationCleanup({ deps, jobId, cutoff, actorId: null, backupId }));
      if (job.status !== "completed") throw failedJob("The cleanup", job.error);
      print(job.result, () => {
        const result = job.result as { observations: number; files: number; storageObjects: number };
        const after = backupId ? ` (backup ${backupId})` : "";
        return `Deleted ${result.observations} observations, ${result.files} file records, ${result.storageObjects} stored objects${after}`;
      });
    });
}

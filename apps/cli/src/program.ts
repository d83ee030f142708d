import { integrityIssueTypes, integrityScansCollection, integritySeverities } from "@meridian/db";
import { readAnalytics } from "@meridian/domain/analytics";
import {
  listIntegrityIssues,
  listIntegrityScans,
  presentScan,
  repairIntegrityIssue,
  runBulkRepair,
  runIntegrityScan,
  startBulkRepair,
  startIntegrityScan,
} from "@meridian/domain/integrity";
import { AppError, cancelJob, listJobs, validationError, type Deps, type SystemActor } from "@meridian/domain/platform";
import { ensureServerAdmin } from "@meridian/domain/auth";
import { readServerSettings, serverSettingsUpdateSchema, updateServerSettings } from "@meridian/domain/system";
import { Command, CommanderError, Option } from "commander";
import { addBackupCommands } from "./backup-commands";
import { followJobToEnd, followToEnd } from "./follow";
import { formatBytes, table, type Output } from "./output";

/** What the CLI's changes are recorded as, in audit entries and histories. */
const CLI: SystemActor = { kind: "system", id: "cli" };

/** Exit codes scripts can rely on. */
const EXIT = { ok: 0, failed: 1, usage: 2, conflict: 3, notFound: 4 } as const;

export function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof AppError)
    return error.status === 404 ? EXIT.notFound : error.status === 409 ? EXIT.conflict : error.status < 500 ? EXIT.usage : EXIT.failed;
  return EXIT.failed;
}

/** What a failed command prints on stderr: the problem, and each field's message when the input was refused. */
export function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const fields = error instanceof AppError ? (error.errors ?? []) : [];
  return fields.length === 0 ? `${message}\n` : `${message}:\n${fields.map((field) => `  ${field.message}\n`).join("")}`;
}

const list = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
const whole = (value: string) => {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number)) throw new AppError("VALIDATION_FAILED", `${value} is not a whole number`);
  return number;
};
const positive = (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new AppError("VALIDATION_FAILED", `${value} is not a positive whole number`);
  return number;
};

/** The whole command tree; `deps` is opened only when a command runs (so --help needs no database). */
export function buildProgram(options: {
  /** The runtime, started on first use; refused on a data folder without data unless the command `mayCreate` one. */
  openDeps: (open?: { mayCreate?: boolean }) => Promise<Deps>;
  output: Output;
  newAdminPassword?: string;
}) {
  const { output } = options;
  const program = new Command("admin")
    .description("Meridian administration: the same operations as the admin API, on DATABASE_URL or the embedded data folder")
    .option("--json", "print machine-readable JSON")
    .exitOverride()
    .configureOutput({ writeOut: (text) => output.text(text), writeErr: (text) => output.error(text) });
  const json = () => Boolean(program.opts().json);
  const print = (value: unknown, human: () => string) => (json() ? output.json(value) : output.text(`${human()}\n`));

  program
    .command("scan")
    .description(
      "run an integrity scan to its end (here, or in a running server's worker) with a progress bar; exits 1 when it fails, 3 when one of the kind runs",
    )
    .addOption(new Option("--kind <kind>", "quick or full").choices(["quick", "full"]).default("quick"))
    .option("--collections <names>", "comma-separated collections (full scans)", list)
    .option("--deep", "check references across collections")
    .option("--storage", "check object storage")
    .option("--checksums", "with --storage: read every object back and compare its SHA-256")
    .option("--health", "run the health checks")
    .option("--limit <n>", "documents per collection", positive)
    .option("--test-data", "report test observations")
    .action(async (flags) => {
      const deps = await options.openDeps();
      const scan = await startIntegrityScan({
        deps,
        actor: null,
        trigger: "cli",
        kind: flags.kind,
        input: {
          collections: flags.collections,
          deepScan: flags.deep,
          checkStorage: flags.storage,
          verifyChecksums: flags.checksums,
          checkHealth: flags.health,
          limitPerCollection: flags.limit,
          includeTestData: flags.testData,
        },
      });
      const ended = await followToEnd({
        output,
        showProgress: !json(),
        label: "scanning",
        read: async () => (await integrityScansCollection.get(deps.db, scan.id))?.doc,
        progressOf: ({ progress }) => ({ done: progress.scanned, total: progress.total, stage: progress.collection }),
        // The queued job finds the scan taken and stops; or a running server's worker takes it over, and this waits for its end.
        work: () => runIntegrityScan({ deps, scanId: scan.id }),
      });
      if (ended.status === "failed") throw new AppError("INTERNAL", `Scan ${scan.id} failed: ${ended.error ?? "unknown error"}`);
      const done = presentScan((await integrityScansCollection.get(deps.db, scan.id))!);
      print(done, () => `Scan ${done.id} ${done.status}: ${done.summary.critical} critical, ${done.summary.warning} warning, ${done.summary.info} info`);
    });

  program
    .command("scans")
    .description("recent scans, newest first")
    .option("--limit <n>", "how many", positive, 20)
    .action(async (flags) => {
      const page = await listIntegrityScans({ deps: await options.openDeps(), limit: flags.limit });
      print(page.items, () =>
        table(
          ["ID", "KIND", "STATUS", "STARTED", "BY", "CRITICAL", "WARNING", "INFO"],
          page.items.map((scan) => [
            scan.id,
            scan.kind,
            scan.status,
            scan.startedAt,
            scan.trigger,
            scan.summary.critical,
            scan.summary.warning,
            scan.summary.info,
          ]),
          "No scans yet.",
        ),
      );
    });

  program
    .command("issues <scanId>")
    .description("a scan's issues, filtered")
    .addOption(new Option("--severity <severity>").choices(integritySeverities))
    .addOption(new Option("--type <type>").choices(integrityIssueTypes))
    .option("--collection <name>")
    .option("--fixable", "only auto-fixable issues")
    .option("--limit <n>", "how many", positive, 100)
    .action(async (scanId: string, flags) => {
      const filter = { severity: flags.severity, type: flags.type, collection: flags.collection, autoFixable: flags.fixable ? ("true" as const) : undefined };
      const page = await listIntegrityIssues({ deps: await options.openDeps(), scanId, filter, limit: flags.limit });
      print(page, () =>
        table(
          ["ID", "SEVERITY", "CODE", "DOCUMENT", "MESSAGE"],
          page.items.map((issue) => [issue.id, issue.severity, issue.code, `${issue.collection}/${issue.documentId}`, issue.message]),
          "No issues.",
        ),
      );
    });

  program
    .command("repair <issueId>")
    .description("repair one issue as its fix says; exits 3 when the document changed since the scan")
    .action(async (issueId: string) => {
      const issue = await repairIntegrityIssue({ deps: await options.openDeps(), actor: CLI, issueId });
      print(issue, () => `Issue ${issue.id} ${issue.status}`);
    });

  program
    .command("repair-all <scanId>")
    .description("repair every open auto-fixable issue of a scan to the end, here or in a running server's worker, with a progress bar")
    .action(async (scanId: string) => {
      const deps = await options.openDeps();
      const { jobId } = await startBulkRepair({ deps, actor: CLI, scanId });
      const job = await followJobToEnd({
        output,
        showProgress: !json(),
        deps,
        jobId,
        label: "repairing",
        work: () => runBulkRepair({ deps, jobId, scanId, issueIds: null }),
      });
      if (job.status === "failed") throw new AppError("INTERNAL", `The repair of scan ${scanId} failed: ${job.error ?? "unknown error"}`);
      print(job.result, () => {
        const result = job.result as { repaired: number; skipped: number } | undefined;
        return `Repaired ${result?.repaired ?? 0}, skipped ${result?.skipped ?? 0}`;
      });
    });

  program
    .command("analytics")
    .description("the system's figures (refreshed every minute by the worker)")
    .action(async () => {
      const figures = await readAnalytics({ deps: await options.openDeps(), scope: "system" });
      print(figures, () =>
        [
          `Observatories      ${figures.observatoryCount}`,
          `Observations       ${figures.observationCount}`,
          `Users              ${figures.userCount}`,
          `Organizations      ${figures.organizationCount}`,
          `Success rate       ${figures.successRate === null ? "—" : `${(figures.successRate * 100).toFixed(1)} %`}`,
          `Storage            ${formatBytes(figures.storageBytes)}`,
        ].join("\n"),
      );
    });

  const settings = program.command("settings").description("read or change the server settings");
  settings.command("get", { isDefault: true }).action(async () => {
    const current = await readServerSettings((await options.openDeps()).db);
    print(current, () =>
      table(
        ["SETTING", "VALUE"],
        Object.entries(current).map(([key, value]) => [key, JSON.stringify(value)]),
        "",
      ),
    );
  });
  settings
    .command("set <assignments...>")
    .description("key=value pairs; values are JSON (numbers, null, objects), or plain text")
    .action(async (assignments: string[]) => {
      const update: Record<string, unknown> = {};
      for (const assignment of assignments) {
        const at = assignment.indexOf("=");
        if (at <= 0) throw new AppError("VALIDATION_FAILED", `${assignment} is not key=value`);
        const raw = assignment.slice(at + 1);
        let value: unknown = raw;
        try {
          value = JSON.parse(raw);
        } catch {
          // Plain text, such as a version number.
        }
        update[assignment.slice(0, at)] = value;
      }
      const parsed = serverSettingsUpdateSchema.safeParse(update);
      if (!parsed.success) throw validationError({ issues: parsed.error.issues });
      const saved = await updateServerSettings({ deps: await options.openDeps(), actor: CLI, update: parsed.data });
      print(saved, () => "Settings saved.");
    });

  program
    .command("create-admin <email>")
    .description("create a server administrator, or make an existing account one; the password of a new account is read from NEW_ADMIN_PASSWORD")
    .action(async (email: string) => {
      const password = options.newAdminPassword;
      if (!password || password.length < 12) throw new AppError("VALIDATION_FAILED", "Set NEW_ADMIN_PASSWORD (at least 12 characters) for a new account");
      const outcome = await ensureServerAdmin({ deps: await options.openDeps({ mayCreate: true }), email, password });
      print({ email, outcome }, () => `${email}: ${outcome}`);
    });

  const jobs = program.command("jobs").description("long jobs: list them, or cancel one that will not finish");
  jobs
    .command("list", { isDefault: true })
    .description("long jobs, newest first")
    .option("--kind <kind>")
    .option("--limit <n>", "how many", positive, 20)
    .action(async (flags) => {
      const page = await listJobs({ deps: await options.openDeps(), limit: flags.limit, kind: flags.kind });
      print(page.items, () =>
        table(
          ["ID", "KIND", "STATUS", "PROGRESS", "STARTED"],
          page.items.map((job) => [job.id, job.kind, job.status, `${job.progress.done}/${job.progress.total ?? "?"}`, job.startedAt]),
          "No jobs.",
        ),
      );
    });
  jobs
    .command("cancel <jobId>")
    .description("end a queued or running job and give back what it held (a restore's maintenance, a backup's record); exits 3 when it already ended")
    .action(async (jobId: string) => {
      const job = await cancelJob({ deps: await options.openDeps(), actor: CLI, jobId });
      print(job, () => `Job ${job.id} (${job.kind}) ${job.status}: ${job.error}`);
    });
  addBackupCommands(program, { openDeps: options.openDeps, output, actor: CLI, json, print, whole });
  return program;
}

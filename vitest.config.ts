import { readFileSync } from "node:fs";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Seconds each integration file took in a clean run of the whole suite, by path from the repository root. */
interface RecordedDurations {
  seconds: Record<string, number>;
}

const DURATIONS_FILE = "tests/file-durations.json";

function readRecordedSeconds(root: string): Record<string, number> {
  try {
    return (JSON.parse(readFileSync(path.join(root, DURATIONS_FILE), "utf8")) as RecordedDurations).seconds;
  } catch {
    return {};
  }
}

/**
 * Starts the files that took longest first. Vitest orders by its own cache of durations, which a
 * fresh clone (CI) lacks; it then goes by file size, and a short file that spawns processes
 * (admin-cli, jobs-killed-attempts, test-run-interrupt: 80 to 140 s each, before the process lane) started in the last
 * minutes and ran alone while the other workers idled. The recorded durations
 * (`node scripts/record-test-durations.mjs` after a full run) give the order instead; files they do
 * not know yet, new ones and the unit files, keep vitest's order and go first.
 */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const seconds = readRecordedSeconds(this.ctx.config.root);
    const recorded = (spec: TestSpecification) => seconds[path.relative(this.ctx.config.root, spec.moduleId).split(path.sep).join("/")];
    const unknown = ordered.filter((spec) => recorded(spec) === undefined);
    const known = ordered.filter((spec) => recorded(spec) !== undefined).sort((a, b) => recorded(b)! - recorded(a)!);
    return [...unknown, ...known];
  }
}

/** What the integration and process files share: one real PostgreSQL and one S3-protocol server, started by the global setup. */
const onRealServices = {
  // The run's PostgreSQL and S3-protocol server (global-setup.ts) and, built meanwhile, the entry bundles.
  globalSetup: ["tests/support/entry-bundles-setup.ts"],
  // Integration files start processes, browsers and jobs and wait for their states; on a loaded
  // 2-core machine that can take minutes, so the per-test bound is a safety net, not a measure.
  testTimeout: 180_000,
  // expect.poll waits for a state as `until` and the browser's WAIT do (15 s), not vitest's default second:
  // a page loading its data on a loaded machine took longer than that (CI run 30).
  expect: { poll: { timeout: 15_000 } },
};

/**
 * Four projects. Unit files (beside the code in packages/ and apps/) need nothing but Node, so they
 * start in milliseconds; `pnpm test:unit` runs them alone. Integration and end-to-end files
 * (tests/ but tests/processes/) make the main lane with them: `pnpm test` runs these two. The process
 * files (tests/processes/) spawn servers, workers, the CLI, a cluster or a whole test run and kill or
 * stop them; `pnpm test:processes` runs them. The topology check (tests/topology/) runs a whole cluster;
 * `pnpm test:topology` runs it. `pnpm test:all` (and `.ci/run`) runs the process lane and the topology
 * check after the main lane, side by side.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default leaves a core free, which on a 2-core CI machine runs every file in turn.
    // Most files wait on PostgreSQL, S3, jobs and sockets rather than the CPU: three at a time
    // kept the machine 91% busy and took the run from 786 s (two at a time) to 717 s
    // (2026-11-26). More would only queue on the two cores.
    maxWorkers: 3,
    // Each worker process runs its files one after another in the same module graph instead of
    // importing the whole server again for each (345 s of import time across the workers in a
    // run, against 32 s shared; the run fell from 730 s to 575 s, 2026-11-26). This holds
    // because no module keeps state a file could leave behind for the next: per-runtime state
    // hangs off each server's `deps` (WeakMaps), no test stubs globals, env or modules, and every
    // file stops what it started in its afterAll.
    isolate: false,
    // Three workers share a queue of files; one slow file started last runs on alone at the end.
    sequence: { sequencer: LongestFirstSequencer },
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", TURBO_TELEMETRY_DISABLED: "1" },
    // `pnpm test:coverage`: line coverage of the code in packages/ and apps/ (issue 59 compares it before and
    // after the test lanes). Only what runs inside vitest's workers counts; spawned servers and workers do not.
    coverage: {
      provider: "v8",
      include: ["packages/*/src/**/*.{ts,tsx}", "apps/*/src/**/*.{ts,tsx}"],
      exclude: ["**/*.test.{ts,tsx}", "**/test-support/**"],
      reporter: ["text-summary", "json-summary"],
      reportsDirectory: "coverage",
      // A run with a failed file still says what it covered.
      reportOnFailure: true,
    },
    // `pnpm test:all` runs every project in one vitest: the main lane (unit, integration) first, then
    // the process lane and the topology check side by side (group order 1). Apart, each of those two
    // kept a core about a third idle (120 to 130 CPU s over the process lane's 91 s; 177 over the
    // topology's 119 s, 2026-11-30), and each started its own vitest and the lane its own PostgreSQL and S3.
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.{ts,tsx}"], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "tests/processes/**"],
          ...onRealServices,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: "processes", include: ["tests/processes/*.test.ts"], ...onRealServices, sequence: { groupOrder: 1 } } },
      {
        // The cluster topology check (issue 26): it starts a whole cluster of its own (`pnpm cluster`) and loses parts of it.
        extends: true,
        test: { name: "topology", include: ["tests/topology/*.check.ts"], testTimeout: 900_000, hookTimeout: 600_000, sequence: { groupOrder: 1 } },
      },
    ],
  },
});

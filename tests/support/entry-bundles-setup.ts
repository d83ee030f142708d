import { mkdtempSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildEntryBundles, type BundledEntry } from "./entry-bundles";
import { openRunFolder, provideRunServices, startRunServices, type RunServices } from "./global-setup";

declare module "vitest" {
  export interface ProvidedContext {
    entryBundles: Record<BundledEntry, string>;
  }
}

/**
 * The run's services (global-setup.ts) and, while they start, the bundles `spawnEntry` starts processes
 * from, built into a folder of the run's own that goes with the run. One after the other (PostgreSQL's
 * initdb, start and migrations, then esbuild) they took 17 to 20 s at a load of 19, side by side 10 to 12.
 * The bundles' setup of its own, so that runs which start no process (the interrupted-run fixture) take
 * global-setup.ts alone and do not build them.
 *
 * Once per vitest, however many projects name it: `pnpm test:all` runs the integration and process
 * projects in one vitest, which calls a project's global setup for each. Apart, the second started a
 * PostgreSQL, an S3 store and the bundles of its own at the start of the run, and its run folder became
 * the temporary directory inside the first's, which lengthened every temporary path of the run (a frame
 * header's card could no longer hold one). The last project's teardown stops them.
 */
export default async function setup(project: TestProject) {
  const holder = globalThis as { [SHARED_RUN]?: SharedRun };
  const shared = (holder[SHARED_RUN] ??= { ready: startRun(project), projects: 0 });
  shared.projects += 1;
  const { services, bundles, stop } = await shared.ready;
  provideRunServices(project, services);
  project.provide("entryBundles", bundles);
  return async () => {
    shared.projects -= 1;
    if (shared.projects > 0) return;
    delete holder[SHARED_RUN];
    await stop();
  };
}

/** On globalThis: vitest may load this module once per project. */
const SHARED_RUN = Symbol.for("meridian.tests.sharedRun");

interface SharedRun {
  ready: Promise<{ services: RunServices; bundles: Record<BundledEntry, string>; stop: () => Promise<void> }>;
  projects: number;
}

async function startRun(project: TestProject): Promise<Awaited<SharedRun["ready"]>> {
  const run = openRunFolder(project);
  const outdir = mkdtempSync(path.join(run.root, "entry-bundles-"));
  const [services, bundles] = await Promise.allSettled([startRunServices(run), buildEntryBundles({ root: project.config.root, outdir })]);
  if (bundles.status === "rejected") {
    if (services.status === "fulfilled") await services.value.stop();
    throw bundles.reason;
  }
  if (services.status === "rejected") throw services.reason;
  return { ...services.value, bundles: bundles.value };
}

import { mkdtempSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildEntryBundles, type BundledEntry } from "./entry-bundles";
import { openRunFolder, startRunServices } from "./global-setup";

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
 */
export default async function setup(project: TestProject) {
  const run = openRunFolder(project);
  const outdir = mkdtempSync(path.join(run.root, "entry-bundles-"));
  const [services, bundles] = await Promise.allSettled([startRunServices(project, run), buildEntryBundles({ root: project.config.root, outdir })]);
  if (bundles.status === "rejected") {
    if (services.status === "fulfilled") await services.value();
    throw bundles.reason;
  }
  if (services.status === "rejected") throw services.reason;
  project.provide("entryBundles", bundles.value);
  return services.value;
}

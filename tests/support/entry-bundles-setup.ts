import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildEntryBundles, type BundledEntry } from "./entry-bundles";

declare module "vitest" {
  export interface ProvidedContext {
    entryBundles: Record<BundledEntry, string>;
  }
}

/**
 * The bundles `spawnEntry` starts processes from, built once per run (about three seconds) into a
 * folder of the run's own: after global-setup.ts, whose run folder is then the temporary directory
 * and goes with the run. Its own file, so that runs which start no process (the interrupted-run
 * fixture) do not build them.
 */
export default async function setup(project: TestProject) {
  const outdir = mkdtempSync(path.join(os.tmpdir(), "entry-bundles-"));
  project.provide("entryBundles", await buildEntryBundles({ root: project.config.root, outdir }));
}

import { setTimeout as sleep } from "node:timers/promises";
import { jobsCollection, type JobDoc } from "@meridian/db";
import type { Deps } from "@meridian/domain/platform";
import { progressReporter, type Output } from "./output";

const POLL_MS = 250;
const ended = (status: string) => status === "completed" || status === "failed";

interface Progress {
  done: number;
  total: number | null;
  stage: string | null;
}

/**
 * Runs a job's work here and now with a progress bar fed from its record, then waits until the
 * record says the job ended, and returns it. The work may return before that: a worker of a
 * running server may have taken the job (a scan's newest run owns it, a run that finds it taken
 * stops), and then that worker finishes it. So what is printed, and the exit code, are the job's
 * own end, whoever ran it.
 */
export async function followToEnd<Doc extends { status: string }>(options: {
  output: Output;
  showProgress: boolean;
  label: string;
  read: () => Promise<Doc | undefined>;
  progressOf: (doc: Doc) => Progress;
  work: () => Promise<unknown>;
}): Promise<Doc> {
  const { read, progressOf } = options;
  const progress = progressReporter(options.output, options.showProgress, options.label);
  const show = (doc: Doc | undefined) => {
    if (!doc) return;
    const { done, total, stage } = progressOf(doc);
    progress.update(done, total, stage);
  };
  // A missed progress read only delays the bar; the work itself reports its failure.
  const timer = setInterval(() => void read().then(show, () => undefined), POLL_MS);
  try {
    await options.work();
    for (;;) {
      const doc = await read();
      if (!doc) throw new Error(`${options.label}: its record is gone`);
      if (ended(doc.status)) return doc;
      await sleep(POLL_MS);
    }
  } finally {
    clearInterval(timer);
    progress.stop();
  }
}

/** followToEnd for a tracked job (its `jobs` record). */
export async function followJobToEnd(options: {
  output: Output;
  showProgress: boolean;
  deps: Deps;
  jobId: string;
  label: string;
  work: () => Promise<unknown>;
}) {
  const { deps, jobId } = options;
  return followToEnd<JobDoc>({
    ...options,
    read: async () => (await jobsCollection.get(deps.db, jobId))?.doc,
    progressOf: (job) => job.progress,
  });
}

import { SingleBar } from "cli-progress";

/** Where the CLI writes: results to stdout, messages to stderr (so `--json` output stays parseable). */
export interface Output {
  text(text: string): void;
  error(text: string): void;
  json(value: unknown): void;
  isTerminal: boolean;
}

export const processOutput: Output = {
  text: (text) => process.stdout.write(text),
  error: (text) => process.stderr.write(text),
  json: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  isTerminal: Boolean(process.stderr.isTTY),
};

/** A progress bar on stderr when a person watches (a terminal, no --json); silent otherwise. */
export function progressReporter(output: Output, wanted: boolean, label: string) {
  if (!wanted || !output.isTerminal) return { update() {}, stop() {} };
  const bar = new SingleBar({ format: `${label} [{bar}] {value}/{total} {stage}`, stream: process.stderr, hideCursor: true }, undefined);
  let started = false;
  return {
    update(done: number, total: number | null, stage: string | null) {
      if (!started) {
        bar.start(total ?? 0, done, { stage: stage ?? "" });
        started = true;
      }
      if (total !== null) bar.setTotal(total);
      bar.update(done, { stage: stage ?? "" });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

import { SingleBar } from "cli-progress";

/** Where the CLI writes: results to stdout, messages to stderr (so `--json` output stays parseable). */
export interface Output {
  text(text: string): void;
  error(text: string): void;
  json(value: unknown): void;
  isTerminal: boolean;
}

/** Where text goes: the process's stdout or stderr, or a test's buffer. */
export interface Stream {
  write(text: string): unknown;
}

export const outputTo = (stdout: Stream, stderr: Stream, isTerminal: boolean): Output => ({
  text: (text) => void stdout.write(text),
  error: (text) => void stderr.write(text),
  json: (value) => void stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  isTerminal,
});

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

const UNITS = ["KiB", "MiB", "GiB", "TiB"];

/** A size for people: bytes under 1 KiB, else KiB, MiB, GiB or TiB with one decimal (--json keeps the raw number). */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return "-";
  if (Math.abs(bytes) < 1024) return `${bytes} B`;
  let value = bytes;
  let unit = "B";
  for (const next of UNITS) {
    if (Math.abs(value) < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${value.toFixed(1)} ${unit}`;
}

/**
 * A plain-text table: a header row, then the rows, columns two spaces apart and padded to their
 * widest cell, numbers right-aligned. Plain columns (no rules or boxes) so that awk and cut still
 * read the output; an empty table is a sentence instead.
 */
export function table(headers: string[], rows: Array<Array<string | number | null | undefined>>, empty: string): string {
  if (rows.length === 0) return empty;
  const cells = rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? "-" : String(cell))));
  const numeric = headers.map((_, column) => rows.every((row) => typeof row[column] === "number"));
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (numeric[column] ? cell.padStart(widths[column]!) : column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ");
  return [line(headers), ...cells.map(line)].join("\n");
}

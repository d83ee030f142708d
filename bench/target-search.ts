/**
 * How fast are target autocomplete and name resolution? Issue 24's goal: a search well under a
 * millisecond on average, from an in-memory index built once at first use.
 *
 *   node --expose-gc --import tsx bench/target-search.ts [--rounds 5]
 *
 * In this process, no server: the first call builds the index from the committed catalog (timed
 * on its own: file read, schema check, keys and sorted lists), then the queries of someone typing
 * names into the wizard's field: every prefix, from one character to the whole name, of every
 * Messier designation and common name, 300 NGC and IC designations and 150 star names drawn with a
 * fixed seed. Each round runs the whole mix; per-call times are taken with performance.now()
 * around searchTargets (and resolveTarget for the whole names). Results: bench/results/target-search.md.
 */
import { resolveTarget, searchTargets, type TargetMatch } from "@meridian/domain/targets";
import { loadAverage, median, numberOption, percentile, writeResult } from "./lib.mjs";

const rounds = numberOption("rounds", 5);

globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const started = performance.now();
const first = resolveTarget({ name: "M31" });
const buildMs = performance.now() - started;
globalThis.gc?.();
const heapMiB = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;

// Every object reached through its designation, to draw names from.
const everything: TargetMatch[] = [];
for (const prefix of ["m", "ngc", "ic"]) {
  for (let number = 1; number <= 8000; number += 1) {
    try {
      everything.push(resolveTarget({ name: `${prefix}${number}` }));
    } catch {
      // Numbers the catalog does not hold.
    }
  }
}
let seed = 24;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = <T>(items: T[], count: number) => Array.from({ length: count }, () => items[Math.floor(random() * items.length)]!);
const messier = everything.filter((match) => match.catalog === "Messier");
const numbered = everything.filter((match) => match.catalog !== "Messier");
const starNames: string[] = [];
for (const letter of "abcdefghijklmnopqrstuvwxyz") {
  for (const item of searchTargets({ q: letter }).items) if (item.kind === "star") starNames.push(item.name);
}
const names = [
  ...messier.flatMap((match) => [match.designation, ...match.aliases.filter((alias) => !/^NGC|^IC/.test(alias))]),
  ...pick(numbered, 300).map((match) => match.designation),
  ...pick([...starNames, "Vega", "Betelgeuse", "Sirius", "Polaris", "Rigil Kentaurus", "Alpha Centauri", "Albireo"], 150),
];
const queries = names.flatMap((name) => Array.from({ length: name.length }, (_, length) => name.slice(0, length + 1)));

function timeAll<T>(inputs: string[], call: (input: string) => T): number[] {
  const times: number[] = [];
  for (const input of inputs) {
    const start = performance.now();
    call(input);
    times.push(performance.now() - start);
  }
  return times;
}

const micro = (ms: number) => `${(ms * 1000).toFixed(1)}`;

timeAll(queries, (q) => searchTargets({ q })); // warm-up: JIT, no caches to fill
const searchRounds: number[][] = [];
const resolveRounds: number[][] = [];
for (let round = 0; round < rounds; round += 1) {
  searchRounds.push(timeAll(queries, (q) => searchTargets({ q })));
  resolveRounds.push(timeAll(names, (name) => resolveTarget({ name })));
}
const searches = searchRounds.flat();
const resolves = resolveRounds.flat();
const oneCharacter = searchRounds.flatMap((times) => times.filter((_, index) => queries[index]!.length === 1));
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

const rows = [
  ["search, all queries", searches],
  ["search, one-character queries (the widest ranges)", oneCharacter],
  ["resolve, whole names", resolves],
] as const;
const table = [
  "| What | calls | mean µs | median µs | p99 µs | max µs |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(([label, times]) => {
    const cells = [mean(times), median([...times]), percentile(times, 99), Math.max(...times)].map(micro);
    return `| ${label} | ${times.length.toLocaleString("en-US")} | ${cells.join(" | ")} |`;
  }),
].join("\n");
const text = [
  `# Target search (bench/target-search.ts), ${new Date().toISOString().slice(0, 10)}`,
  "",
  `Node ${process.version}, load average ${loadAverage()}; ${queries.length.toLocaleString("en-US")} queries ` +
    `(every prefix of ${names.length} names), ${rounds} rounds after one warm-up round.`,
  `Index built at first use in ${buildMs.toFixed(0)} ms (first answer: ${first.designation}); ` +
    `it holds ${heapMiB.toFixed(0)} MiB of heap${globalThis.gc ? "" : " (run with --expose-gc for a settled figure)"}.`,
  "",
  table,
  "",
].join("\n");
process.stdout.write(text);
await writeResult("target-search.md", text);

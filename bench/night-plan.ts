/**
 * The night plan's quality and speed (issue 24, point 10).
 *
 *   node --import tsx bench/night-plan.ts [--targets 200] [--pending 2000] [--rounds 5]
 *
 * Quality: one La Palma night (the night that begins 2026-12-10), `--targets` observations drawn
 * with a fixed seed (targets north of −20°, priorities 1 to 10, 10 to 60 minutes each, minimum
 * altitudes of 30° to 45°, astronomical darkness). Meridian's plan is dispatch run forward
 * (`runDispatchForward`, from the start of darkness, each observation holding the observatory for
 * its minutes); the peer is astroplan's PriorityScheduler (Debian's python3-astroplan, run by
 * bench/astroplan-peer.py with /usr/bin/python3, IERS downloads off) on the same site, darkness,
 * observations, durations and constraints, with no slew time between blocks (ours is inside each
 * observation's minutes). astropy then judges both plans: the dark time each fills, the slots where
 * any minute breaks a constraint, and the slots given to lower-priority work while a higher-priority
 * observation left out could have run there for its whole duration.
 *
 * Speed: `--pending` observations drawn the same way, planned over the same night, against one
 * run of the plain dispatch ordering (`planQueue` over the same set at the start of darkness, as
 * dispatch asks it), both with a fresh sky model, each timed over `--rounds` rounds after a
 * warm-up (CPU time of this process). No database: both read the same documents from memory.
 * Results: bench/results/night-plan.md.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import type { ObservationDoc, StoredDocument } from "@meridian/db";
import { nightOf, planQueue, runDispatchForward, skyModel } from "@meridian/domain/observations";
import { loadAverage, median, numberOption, repoRoot, writeResult } from "./lib.mjs";

const targets = numberOption("targets", 200);
const pendingCount = numberOption("pending", 2000);
const rounds = numberOption("rounds", 5);
const site = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
const night = nightOf({ location: site, timeZone: "Atlantic/Canary", date: "2026-12-10" })!;
const darkStart = new Date(Math.ceil(night.darkStart!.getTime() / 60_000) * 60_000);
const darkEnd = night.darkEnd!;

let seed = 2024;
const random = () => {
  seed = (seed * 16807) % 2147483647;
  return (seed - 1) / 2147483646;
};

function observations(count: number): StoredDocument<ObservationDoc>[] {
  return Array.from({ length: count }, (_, index) => {
    const minutes = 10 + Math.floor(random() * 51);
    return {
      id: `obn_${String(index).padStart(5, "0")}`,
      createdAt: new Date(Date.parse("2026-12-01T00:00:00Z") + index * 1000),
      updatedAt: new Date("2026-12-01T00:00:00Z"),
      doc: {
        name: `Target ${index}`,
        projectId: "prj_bench",
        observatoryId: "obs_bench",
        ownerId: "usr_bench",
        type: "flexible",
        priority: 1 + Math.floor(random() * 10),
        targets: [
          {
            name: `T${index}`,
            ra: random() * 360,
            dec: -20 + random() * 100,
            epoch: "J2000",
            exposures: [{ filter: "L", exposureSeconds: minutes * 60, count: 1, binning: 1 }],
          },
        ],
        constraints: { minAltitude: 30 + Math.floor(random() * 16), maxAirmass: null, moonDistance: null, twilight: "astronomical" },
        fixedTimeStart: null,
        fixedTimeEnd: null,
        bypassDarkness: false,
        notifications: { email: false, push: false, states: [] },
        status: "pending",
        statusReason: null,
        statusChangedAt: "2026-12-01T00:00:00.000Z",
        isMonitoring: false,
        staleReportedAt: null,
      },
    };
  });
}
const inDispatchOrder = (items: StoredDocument<ObservationDoc>[]) =>
  [...items].sort((a, b) => b.doc.priority - a.doc.priority || a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
const durationMs = (item: StoredDocument<ObservationDoc>) => item.doc.targets[0]!.exposures[0]!.exposureSeconds * 1000;
const plan = (items: StoredDocument<ObservationDoc>[]) =>
  runDispatchForward({ model: skyModel({ location: site }), pending: items, start: darkStart, end: night.sunrise, durationMs });

// Quality against astroplan.
const quality = inDispatchOrder(observations(targets));
const ours = plan(quality);
const job = {
  site,
  window: { start: darkStart.toISOString(), end: darkEnd.toISOString() },
  observations: quality.map((item) => ({
    id: item.id,
    ra: item.doc.targets[0]!.ra,
    dec: item.doc.targets[0]!.dec,
    priority: item.doc.priority,
    seconds: durationMs(item) / 1000,
    minAltitude: item.doc.constraints.minAltitude ?? 30,
  })),
  meridian: ours.slots.map((slot) => ({ id: slot.observation.id, start: slot.start.toISOString(), end: slot.end.toISOString() })),
};
const peer = spawnSync("/usr/bin/python3", [path.join(repoRoot, "bench/astroplan-peer.py")], {
  input: JSON.stringify(job),
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
if (peer.status !== 0) throw new Error(`astroplan-peer.py failed (${peer.status}): ${peer.stderr}`);
interface Judged {
  slots: number;
  filled: number;
  prioritySum: number;
  violations: unknown[];
  inversions: unknown[];
}
const judged = JSON.parse(peer.stdout) as { astroplan: Judged & { seconds: number }; meridian: Judged };

// Speed against one run of the dispatch ordering.
const crowd = inDispatchOrder(observations(pendingCount));
const ready = { location: site, online: true, dispatchEnabled: true, pluginCurrent: true, safe: true, busy: false };
const cpuMs = (work: () => unknown) => {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};
const ordering = () => planQueue({ state: ready, pending: crowd, now: darkStart, durationMs, model: skyModel({ location: site }) });
let planned = 0;
const planning = () => (planned = plan(crowd).slots.length);
cpuMs(ordering);
cpuMs(planning);
const orderingMs: number[] = [];
const planningMs: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  orderingMs.push(cpuMs(ordering));
  planningMs.push(cpuMs(planning));
}
const orderingMedian = median([...orderingMs]);
const planningMedian = median([...planningMs]);

const darkHours = (darkEnd.getTime() - darkStart.getTime()) / 3_600_000;
const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
const row = (name: string, result: Judged) =>
  `| ${name} | ${result.slots} | ${percent(result.filled)} | ${result.prioritySum} | ${result.violations.length} | ${result.inversions.length} |`;
const text = [
  `# Night plan (bench/night-plan.ts), ${new Date().toISOString().slice(0, 10)}`,
  "",
  `Node ${process.version}, load average ${loadAverage()}. La Palma, the night that begins 2026-12-10: astronomical darkness ` +
    `${darkStart.toISOString()} to ${darkEnd.toISOString()} (${darkHours.toFixed(2)} h).`,
  "",
  `## Quality: ${targets} observations, against astroplan ${"0.7"} PriorityScheduler`,
  "",
  "| Plan | slots | dark time filled | sum of planned priorities | constraint violations (astropy) | priority inversions (astropy) |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  row("Meridian (dispatch run forward)", judged.meridian),
  row(`astroplan PriorityScheduler (${judged.astroplan.seconds.toFixed(1)} s)`, judged.astroplan),
  "",
  "A violation is a slot with any minute where its target stands below its minimum altitude (astropy, with refraction at 0.78 bar) " +
    "or the sun above −18°; an inversion is a slot given to lower-priority work at a moment when a higher-priority observation left " +
    "out of the plan could have run there for its whole duration.",
  "",
  ...(judged.meridian.violations.length > 0 ? ["Meridian's violations:", "", "```", JSON.stringify(judged.meridian.violations, null, 1), "```", ""] : []),
  ...(judged.meridian.inversions.length > 0 ? ["Meridian's inversions:", "", "```", JSON.stringify(judged.meridian.inversions, null, 1), "```", ""] : []),
  `## Speed: ${pendingCount} pending observations over the night, ${rounds} rounds (CPU ms of this process)`,
  "",
  "| What | median ms | rounds |",
  "| --- | ---: | --- |",
  `| the night plan (${planned} slots) | ${planningMedian.toFixed(1)} | ${planningMs.map((ms) => ms.toFixed(0)).join(", ")} |`,
  `| one run of the dispatch ordering (planQueue over the same set) | ${orderingMedian.toFixed(1)} | ${orderingMs.map((ms) => ms.toFixed(1)).join(", ")} |`,
  `| ratio | ${(planningMedian / orderingMedian).toFixed(1)}× | |`,
  "",
].join("\n");
process.stdout.write(text);
await writeResult("night-plan.md", text);

// The network side of bench/cluster-throughput.ts, in a process of its own so that its CPU is
// counted apart from the load generator's: simulated observatories (the real plugin protocol
// through nginx) that run every assignment to completed, and user sockets that hear the status
// changes. Driven over IPC: `start` → `connected`, `count` → the totals so far (and the assignment-to-completed
// times since the last count), `stop`.
import { ObservatorySimulator } from "@meridian/simulator";
import WebSocket from "ws";

interface Start {
  type: "start";
  address: string;
  keys: string[];
  /** One user socket per token. */
  readerTokens: string[];
  speed: number;
}
type Command = Start | { type: "count" } | { type: "stop" };

const totals = { reports: 0, completed: 0, heard: 0 };
/** From `assign` to the ack of `completed`, per observation completed, in ms (since the last `count`). */
let cycles: number[] = [];
const assignedAt = new Map<string, number>();
const simulators: ObservatorySimulator[] = [];
const readers: WebSocket[] = [];
const send = (message: unknown) => process.send!(message);

async function start(command: Start) {
  for (const key of command.keys) {
    const simulator = new ObservatorySimulator({ url: command.address, key, reconnect: true, speed: command.speed, imageBytes: 4096 });
    simulator.on("assign", (observation: { id: string }) => assignedAt.set(observation.id, performance.now()));
    simulator.on("status", ({ observationId, status }: { observationId: string; status: string }) => {
      totals.reports += 1;
      if (status !== "completed") return;
      totals.completed += 1;
      const since = assignedAt.get(observationId);
      if (since !== undefined) cycles.push(performance.now() - since);
      assignedAt.delete(observationId);
    });
    simulators.push(simulator);
  }
  for (let index = 0; index < simulators.length; index += 20) await Promise.all(simulators.slice(index, index + 20).map((simulator) => simulator.connect()));
  await Promise.all(
    command.readerTokens.map(
      (token) =>
        new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(`${command.address.replace(/^http/, "ws")}/ws`, { headers: { authorization: `Bearer ${token}` } });
          ws.on("message", (raw) => {
            if ((JSON.parse(raw.toString()) as { type: string }).type === "observation.status_changed") totals.heard += 1;
          });
          ws.once("open", () => resolve());
          ws.once("error", reject);
          readers.push(ws);
        }),
    ),
  );
  send({ type: "connected" });
}

process.on("message", (command: Command) => {
  if (command.type === "start") void start(command).catch((error: Error) => send({ type: "failed", message: error.stack ?? error.message }));
  else if (command.type === "count") {
    const now = performance.now();
    // An observatory that has held its observation for 10 s: at speed 10 the telescope needs 0.1 s of it.
    const stalled = simulators.filter((simulator) => {
      const since = simulator.observationInHand ? assignedAt.get(simulator.observationInHand) : undefined;
      return since !== undefined && now - since > 10_000;
    }).length;
    send({ type: "counts", ...totals, cycles, stalled });
    cycles = [];
  } else {
    for (const reader of readers) reader.terminate();
    void Promise.all(simulators.map((simulator) => simulator.close().catch(() => undefined))).then(() => process.exit(0));
  }
});

import { parseArgs } from "node:util";
import type { ServerToPluginMessage } from "@meridian/rules/observatory-protocol";
import { ObservatorySimulator } from "./simulator";

const usage = "pnpm simulate:observatory --url http://127.0.0.1:3000 --key mok_... [--speed 60] [--plugin-version 3.8.0.0]";
const { values } = parseArgs({
  options: {
    url: { type: "string" },
    key: { type: "string" },
    speed: { type: "string", default: "1" },
    "plugin-version": { type: "string", default: "3.8.0.0" },
  },
});
if (!values.url || !values.key) {
  console.error(usage);
  process.exit(2);
}
const speed = Number(values.speed);
if (!Number.isFinite(speed) || speed <= 0) {
  console.error(`--speed must be a positive number\n${usage}`);
  process.exit(2);
}
const simulator = new ObservatorySimulator({
  url: values.url,
  key: values.key,
  speed,
  pluginVersion: values["plugin-version"],
  reconnect: true,
  systemInfo: { os: process.platform, simulator: true },
  equipment: { camera: "Simulated CCD", mount: "Simulated mount" },
  log: (line) => console.log(`[${new Date().toISOString()}] ${line}`),
});
simulator.on("message", (message: ServerToPluginMessage) => {
  if (message.type !== "ack") console.log(`[${new Date().toISOString()}] server: ${JSON.stringify(message).slice(0, 300)}`);
});
const closeMeanings: Record<number, string> = {
  1001: "the server is stopping",
  4401: "the key no longer works; not connecting again",
  4408: "the server heard nothing for the heartbeat timeout",
  4409: "a newer connection with this key replaced this one; not connecting again",
  4413: "the server sent more than this plugin read",
  4429: "too many messages were waiting",
};
simulator.on("close", (code: number, reason: string) => {
  console.log(`connection closed (${code} ${reason})${closeMeanings[code] ? `: ${closeMeanings[code]}` : ""}`);
  // Connecting again is the simulator's own business; these two say not to.
  if (code === 4409) process.exit(0);
  if (code === 4401) process.exit(1);
});
simulator.on("reconnected", () => console.log(`[${new Date().toISOString()}] connected again`));
await simulator.connect();
console.log(`connected to ${values.url} as an observatory (plugin ${values["plugin-version"]}, speed ×${speed})`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void simulator.goodbye().finally(() => process.exit(0)));

import { parseArgs } from "node:util";
import { FILTER_NAME_MAX_LENGTH, MAX_REPORTED_FILTERS } from "@meridian/rules";
import type { ServerToPluginMessage } from "@meridian/rules/observatory-protocol";
import { DEFAULT_OPTICS, pixelScaleArcsec, type SkySettings } from "./sky/camera";
import { ObservatorySimulator, SIMULATED_FILTERS } from "./simulator";

const usage = `pnpm simulate:observatory --url http://127.0.0.1:3000 --key mok_... [options]
  --speed 60                   time runs this many times faster than the exposures (default 1)
  --plugin-version 3.8.0.0     the plugin version it says hello with
  --filters L,R,G,B,Ha,OIII,SII  the filters it reports (equipment.filters; "" reports none: any filter is sent to it)
Frames of real sky, drawn from the star catalog STAR_CATALOG_DIR (default /usr/share/astrometry) with query-starkd:
  --seeing 4                   the stars' FWHM, arcseconds
  --pointing-error-arcmin 1    each frame points off its target by a random distance up to this
  --tracking-error-arcsec 0    each frame's stars trail this far along a random direction
  --cloud-fraction 0           the share of frames (0-1) taken through cloud: most stars lost, a bright background
  --rotation-deg 0             the camera's angle: image up at this position angle, east of north
  --seed 1                     the same seed draws the same frames in the same order
  --pixel-size-um ${DEFAULT_OPTICS.pixelSizeMicrons}           the camera's pixel (the frame's scale is pixel size × binning / focal length)
  --focal-length-mm ${DEFAULT_OPTICS.focalLengthMm}         the telescope's focal length
  --sensor ${DEFAULT_OPTICS.sensorWidthPixels}x${DEFAULT_OPTICS.sensorHeightPixels}             the camera's pixels, unbinned
  --no-sky                     upload a placeholder image and preview per observation instead`;

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    key: { type: "string" },
    speed: { type: "string", default: "1" },
    "plugin-version": { type: "string", default: "3.8.0.0" },
    filters: { type: "string", default: SIMULATED_FILTERS.join(",") },
    seeing: { type: "string", default: "4" },
    "pointing-error-arcmin": { type: "string", default: "1" },
    "tracking-error-arcsec": { type: "string", default: "0" },
    "cloud-fraction": { type: "string", default: "0" },
    "rotation-deg": { type: "string", default: "0" },
    seed: { type: "string", default: "1" },
    "pixel-size-um": { type: "string", default: String(DEFAULT_OPTICS.pixelSizeMicrons) },
    "focal-length-mm": { type: "string", default: String(DEFAULT_OPTICS.focalLengthMm) },
    sensor: { type: "string", default: `${DEFAULT_OPTICS.sensorWidthPixels}x${DEFAULT_OPTICS.sensorHeightPixels}` },
    "no-sky": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}

function refuse(problem: string): never {
  console.error(`${problem}\n${usage}`);
  process.exit(2);
}

/** A number flag within its range, or the usage and exit code 2. */
function numberFlag(name: keyof typeof values, check: (value: number) => boolean, rule: string): number {
  const value = Number(values[name]);
  if (!Number.isFinite(value) || !check(value)) refuse(`--${name} must be ${rule}`);
  return value;
}

if (!values.url || !values.key) refuse("--url and --key are required");
const speed = numberFlag("speed", (value) => value > 0, "a positive number");
const sensor = /^(\d{1,5})x(\d{1,5})$/.exec(values.sensor ?? "");
if (!sensor || Number(sensor[1]) < 64 || Number(sensor[2]) < 64 || Number(sensor[1]) * Number(sensor[2]) > 100_000_000) {
  refuse("--sensor must be WIDTHxHEIGHT in pixels, each at least 64 and at most 100 megapixels in all");
}
const filters = (values.filters ?? "")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);
if (filters.some((name) => name.length > FILTER_NAME_MAX_LENGTH) || filters.length > MAX_REPORTED_FILTERS)
  refuse(`--filters must be at most ${MAX_REPORTED_FILTERS} names separated by commas, each at most ${FILTER_NAME_MAX_LENGTH} characters`);
const focalLengthMm = numberFlag("focal-length-mm", (value) => value > 0 && value <= 100_000, "a length in millimetres, above 0 and at most 100000");
const equipment = {
  camera: "Simulated CCD",
  telescope: `Simulated ${focalLengthMm} mm telescope`,
  mount: "Simulated mount",
  pixelSizeMicrons: numberFlag("pixel-size-um", (value) => value > 0 && value <= 100, "a size in micrometres, above 0 and at most 100"),
  focalLengthMm,
  sensorWidthPixels: Number(sensor[1]),
  sensorHeightPixels: Number(sensor[2]),
  ...(filters.length > 0 ? { filters } : {}),
};
const sky: SkySettings | undefined = values["no-sky"]
  ? undefined
  : {
      catalogDir: process.env.STAR_CATALOG_DIR?.trim() || "/usr/share/astrometry",
      seeingArcsec: numberFlag("seeing", (value) => value > 0 && value <= 60, "arcseconds, above 0 and at most 60"),
      pointingErrorArcmin: numberFlag("pointing-error-arcmin", (value) => value >= 0 && value <= 600, "arcminutes, 0 to 600"),
      trackingErrorArcsec: numberFlag("tracking-error-arcsec", (value) => value >= 0 && value <= 3600, "arcseconds, 0 to 3600"),
      cloudFraction: numberFlag("cloud-fraction", (value) => value >= 0 && value <= 1, "a share from 0 to 1"),
      rotationDeg: numberFlag("rotation-deg", (value) => value >= -360 && value <= 360, "degrees, -360 to 360"),
      seed: numberFlag("seed", (value) => Number.isInteger(value) && value >= 0 && value < 2 ** 32, "a whole number from 0 to 4294967295"),
    };
const simulator = new ObservatorySimulator({
  url: values.url!,
  key: values.key!,
  speed,
  pluginVersion: values["plugin-version"],
  reconnect: true,
  systemInfo: { os: process.platform, simulator: true },
  equipment,
  sky,
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
const scale = pixelScaleArcsec(equipment).toFixed(2);
console.log(
  `connected to ${values.url} as an observatory (plugin ${values["plugin-version"]}, speed ×${speed}, ` +
    `${filters.length > 0 ? `filters ${filters.join(" ")}` : "no filters reported"}` +
    `${sky ? `, real sky at ${scale}″ a pixel over ${equipment.sensorWidthPixels}×${equipment.sensorHeightPixels}` : ""})`,
);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void simulator.goodbye().finally(() => process.exit(0)));

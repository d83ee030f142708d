import { runDispatchForward } from "./src/observations/plan";
import { skyModel } from "./src/observations/sky-model";
import { nightOf } from "./src/observations/night";
const loc = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
const night = nightOf({ location: loc, timeZone: "Atlantic/Canary", date: "2026-11-23" })!;
let seed = 3; const r = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
const items = Array.from({ length: 2000 }, (_, i) => ({ id: `o${i}`, createdAt: new Date(i), updatedAt: new Date(0), doc: {
  name: "x", projectId: "p", observatoryId: "o", ownerId: "u", type: "flexible", priority: 1 + Math.floor(r() * 10),
  targets: [{ name: "t", ra: r() * 360, dec: r() * 120 - 40, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: 60 + r() * 1800, count: 1, binning: 1 }] }],
  constraints: { minAltitude: 30, maxAirmass: r() < 0.3 ? 2 : null, moonDistance: r() < 0.3 ? 30 : null, twilight: "astronomical" },
  fixedTimeStart: null, fixedTimeEnd: null, bypassDarkness: false, notifications: { email: true, push: true, states: [] }, status: "pending",
  statusReason: null, statusChangedAt: "x", isMonitoring: false, staleReportedAt: null } as any }))
  .sort((a, b) => b.doc.priority - a.doc.priority || a.createdAt.getTime() - b.createdAt.getTime());
for (let i = 0; i < 4; i++) { (globalThis as any).__unsched = 0; const t = performance.now(); const c0 = process.cpuUsage();
const model = skyModel({ location: loc });
const res = runDispatchForward({ model, pending: items, start: night.sunset, end: night.sunrise, durationMs: (o) => o.doc.targets[0].exposures[0].exposureSeconds * 1000 });
const c = process.cpuUsage(c0); console.log("unsched", (globalThis as any).__unsched.toFixed(0), (performance.now() - t).toFixed(0), "ms wall", ((c.user + c.system) / 1000).toFixed(0), "ms cpu", res.slots.length); }

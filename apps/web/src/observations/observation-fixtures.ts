import type { Observation } from "./labels";

/** An observation as `observations.get` answers it: pending, one target, owned by `usr_owner`; `fields` override. */
export function observationFixture(fields: Partial<Observation> = {}): Observation {
  return {
    id: "obs_1",
    name: "Solo",
    projectId: "prj_1",
    observatoryId: "oby_1",
    candidateObservatoryIds: ["oby_1"],
    ownerId: "usr_owner",
    type: "flexible",
    priority: 5,
    targets: [{ name: "Arcturus", ra: 213.92, dec: 19.18, exposures: [{ filter: "V", exposureSeconds: 5, count: 1, binning: 1 }] }],
    constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
    fixedTimeStart: null,
    fixedTimeEnd: null,
    bypassDarkness: false,
    notifications: { email: true, push: true, states: [] },
    status: "pending",
    statusReason: null,
    statusChangedAt: "2026-11-20T10:00:00.000Z",
    isMonitoring: false,
    monitoring: null,
    storageDestinationId: null,
    monitoringRuns: null,
    estimatedSeconds: 135,
    progress: [],
    repeatOf: null,
    repeatId: null,
    stale: null,
    createdAt: "2026-11-20T10:00:00.000Z",
    updatedAt: "2026-11-20T10:00:00.000Z",
    ...fields,
  } as Observation;
}

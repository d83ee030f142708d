import { filesCollection, observationHistoryCollection, observationsCollection } from "@meridian/db";
import { inTransaction, addJob } from "@meridian/domain/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileDocument, observationDocument } from "../support/observation-documents";
import { expectRefusal, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";
import { until } from "../support/until";

const ADMIN = { email: "analytics-admin@example.com", password: "analytics admin password" };
// The figures' domain rules through the app router's caller, on a runtime without HTTP whose worker refreshes the summary.
let runtime: TestRuntime;
let admin: CallerAccount;
let owner: CallerAccount;
let other: CallerAccount;
let outsider: CallerAccount;
let mine: string;
beforeAll(async () => {
  runtime = await startTestRuntime({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }, worker: true });
  admin = await runtime.signIn(ADMIN);
  [owner, other, outsider] = [await runtime.signup(), await runtime.signup(), await runtime.signup()];
  const { db } = runtime.deps;
  const seed = async (account: CallerAccount, statuses: Array<ObservationStatusName>) => {
    const observatory = (await account.caller.observatories.create({ name: "Counted" })).id;
    const projectId = (await account.caller.projects.create({ name: "Counted" })).id;
    for (const status of statuses) {
      const observation = await observationsCollection.insert(
        db,
        observationDocument({ projectId, observatoryId: observatory, ownerId: account.id }, { status }),
      );
      if (status === "completed" || status === "failed")
        // Ninety minutes in progress, then the end: an hour and a half observed.
        await observationHistoryCollection.insert(db, {
          observationId: observation.id,
          from: "assigned",
          to: "in_progress",
          at: new Date(Date.now() - 90 * 60_000).toISOString(),
          actor: { kind: "system", id: "test" },
          reason: null,
        });
      if (status === "completed" || status === "failed")
        await observationHistoryCollection.insert(db, {
          observationId: observation.id,
          from: "in_progress",
          to: status,
          at: new Date().toISOString(),
          actor: { kind: "system", id: "test" },
          reason: null,
        });
      if (status === "completed") await filesCollection.insert(db, fileDocument(observation.id, observatory, "frame.fits", { sizeBytes: 1000 }));
    }
    return observatory;
  };
  mine = await seed(owner, ["pending", "completed", "completed", "failed", "aborted"]);
  await seed(other, ["completed", "partially_completed"]);
});
afterAll(() => runtime?.stop());
type ObservationStatusName = "pending" | "completed" | "failed" | "aborted" | "partially_completed";

interface Analytics {
  scope: string;
  observatoryCount: number;
  observationCount: number;
  userCount: number;
  organizationCount: number;
  successRate: number | null;
  storageBytes: number;
  observationsByStatus: Record<string, number>;
  daily: Array<{ date: string; created: number; completed: number; failed: number }>;
  hoursByObservatory: Array<{ observatoryId: string; observatoryName: string | null; hours: number }>;
  hoursByProject: Array<{ projectId: string; projectName: string | null; hours: number }>;
  computedAt: string;
}
const today = () => new Date().toISOString().slice(0, 10);

/** The summary as of now: the minute's refresh job, run now, and waited for (the cron may have run mid-seeding). */
async function refreshed(read: () => Promise<Analytics> = () => admin.caller.analytics.system()) {
  const asked = new Date().toISOString();
  await inTransaction(runtime.deps, (t) => addJob({ t, name: "refresh_analytics", payload: { _cron: { ts: asked, backfilled: false } } }));
  return until("a fresh summary", async () => {
    const figures = await read();
    return figures.computedAt >= asked ? figures : undefined;
  });
}

describe("analytics", () => {
  it("gives server admins the whole system's figures, from a summary", async () => {
    const figures = await refreshed();
    expect(figures).toMatchObject({
      scope: "system",
      observatoryCount: 2,
      observationCount: 7,
      userCount: 4,
      organizationCount: 0,
      storageBytes: 3000,
      observationsByStatus: { pending: 1, completed: 3, failed: 1, aborted: 1, partially_completed: 1, in_progress: 0 },
    });
    // completed / (completed + failed + aborted + partially completed)
    expect(figures.successRate).toBeCloseTo(3 / 6);
    expect(figures.daily).toHaveLength(30);
    expect(figures.daily.at(-1)).toEqual({ date: today(), created: 7, completed: 3, failed: 1 });
    // 1.5 h for each run that completed or failed: three on the owner's observatory, one on the other's.
    expect(figures.hoursByObservatory).toEqual([
      { observatoryId: mine, observatoryName: "Counted", hours: 4.5 },
      { observatoryId: expect.any(String), observatoryName: "Counted", hours: 1.5 },
    ]);
    expect(figures.hoursByProject.map((entry) => entry.hours)).toEqual([4.5, 1.5]);
  });

  it("gives an observatory's owner the same figures for their observatories only, and others none", async () => {
    const figures = await refreshed(() => owner.caller.analytics.mine());
    expect(figures).toMatchObject({ scope: "observatories", observatoryCount: 1, observationCount: 5, userCount: 1, storageBytes: 2000 });
    expect(figures.successRate).toBeCloseTo(2 / 4);
    expect(figures.daily.at(-1)).toEqual({ date: today(), created: 5, completed: 2, failed: 1 });
    expect(figures.hoursByObservatory).toEqual([{ observatoryId: mine, observatoryName: "Counted", hours: 4.5 }]);
    const none = await outsider.caller.analytics.mine();
    expect(none).toMatchObject({ observatoryCount: 0, observationCount: 0, successRate: null, storageBytes: 0 });
    // An observatory admin (not owner) sees it too; a viewer does not.
    await owner.caller.observatories.addUser({ id: mine, email: other.email, permissions: { can_admin: true } });
    await owner.caller.observatories.addUser({ id: mine, email: outsider.email, permissions: { can_view: true } });
    expect((await other.caller.analytics.mine()).observatoryCount).toBe(2);
    expect((await outsider.caller.analytics.mine()).observatoryCount).toBe(0);
  });

  it("is exact again within a minute: the refresh job recomputes the summary", async () => {
    const before = await refreshed();
    const projectId = (await owner.caller.projects.create({ name: "Later" })).id;
    const target = { name: "Vega", ra: 279.2, dec: 38.8, exposures: [{ filter: "V", exposureSeconds: 5, count: 1, binning: 1 }] };
    await owner.caller.observations.create({ name: "Later", projectId, observatoryId: mine, targets: [target] });
    const after = await refreshed();
    expect(after.observationCount).toBe(before.observationCount + 1);
    expect(after.daily.at(-1)!.created).toBe(before.daily.at(-1)!.created + 1);
  });

  it("is for server administrators, and the scoped figures for signed-in users", async () => {
    await expectRefusal(runtime.anonymous.analytics.system(), 401, "UNAUTHENTICATED");
    await expectRefusal(owner.caller.analytics.system(), 403, "FORBIDDEN");
    await expectRefusal(runtime.anonymous.analytics.mine(), 401, "UNAUTHENTICATED");
  });
});

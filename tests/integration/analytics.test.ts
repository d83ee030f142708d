import { filesCollection, observationHistoryCollection, observationsCollection } from "@meridian/db";
import { inTransaction, addJob } from "@meridian/domain/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { fileDocument, observationDocument } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "analytics-admin@example.com", password: "analytics admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
let other: Account;
let outsider: Account;
let mine: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  [owner, other, outsider] = [await createAccount(server), await createAccount(server), await createAccount(server)];
  const { db } = server.server.runtime.deps;
  const seed = async (account: Account, statuses: Array<ObservationStatusName>) => {
    const observatory = ((await must("/observatories", { method: "POST", token: account.token, json: { name: "Counted" } }, 201)) as { id: string }).id;
    const projectId = ((await must("/projects", { method: "POST", token: account.token, json: { name: "Counted" } }, 201)) as { id: string }).id;
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
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);
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
async function refreshed(token = adminToken, path = "/api/v1/admin/analytics") {
  const asked = new Date().toISOString();
  await inTransaction(server.server.runtime.deps, (t) => addJob({ t, name: "refresh_analytics", payload: { _cron: { ts: asked, backfilled: false } } }));
  return until("a fresh summary", async () => {
    const figures = (await must(path, { token }, 200)) as Analytics;
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
    const figures = await refreshed(owner.token, "/api/v1/user/analytics");
    expect(figures).toMatchObject({ scope: "observatories", observatoryCount: 1, observationCount: 5, userCount: 1, storageBytes: 2000 });
    expect(figures.successRate).toBeCloseTo(2 / 4);
    expect(figures.daily.at(-1)).toEqual({ date: today(), created: 5, completed: 2, failed: 1 });
    expect(figures.hoursByObservatory).toEqual([{ observatoryId: mine, observatoryName: "Counted", hours: 4.5 }]);
    const none = (await must("/api/v1/user/analytics", { token: outsider.token }, 200)) as Analytics;
    expect(none).toMatchObject({ observatoryCount: 0, observationCount: 0, successRate: null, storageBytes: 0 });
    // An observatory admin (not owner) sees it too; a viewer does not.
    await must(`/observatories/${mine}/members`, { method: "POST", token: owner.token, json: { email: other.email, permissions: { can_admin: true } } }, 201);
    await must(`/observatories/${mine}/members`, { method: "POST", token: owner.token, json: { email: outsider.email, permissions: { can_view: true } } }, 201);
    expect(((await must("/api/v1/user/analytics", { token: other.token }, 200)) as Analytics).observatoryCount).toBe(2);
    expect(((await must("/api/v1/user/analytics", { token: outsider.token }, 200)) as Analytics).observatoryCount).toBe(0);
  });

  it("is exact again within a minute: the refresh job recomputes the summary", async () => {
    const before = await refreshed();
    const projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Later" } }, 201)) as { id: string }).id;
    const target = { name: "Vega", ra: 279.2, dec: 38.8, exposures: [{ filter: "V", exposureSeconds: 5, count: 1, binning: 1 }] };
    await must("/observations", { method: "POST", token: owner.token, json: { name: "Later", projectId, observatoryId: mine, targets: [target] } }, 201);
    const after = await refreshed();
    expect(after.observationCount).toBe(before.observationCount + 1);
    expect(after.daily.at(-1)!.created).toBe(before.daily.at(-1)!.created + 1);
  });

  it("is for server administrators, and the scoped figures for signed-in users", async () => {
    await expectProblem(await server.request("/api/v1/admin/analytics"), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request("/api/v1/admin/analytics", { token: owner.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request("/api/v1/user/analytics"), 401, "UNAUTHENTICATED");
  });
});

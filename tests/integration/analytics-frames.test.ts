import { randomUUID } from "node:crypto";
import { filesCollection, observationsCollection, type FrameDoc } from "@meridian/db";
import { refreshAnalytics } from "@meridian/domain/analytics";
import { queuedFrameAnalysis } from "@meridian/rules/frames";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import { fileDocument, observationDocument } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";

// Analytics over frames: analysed, the accepted share and the median FWHM per observatory, over the last 30 days.
const ADMIN = { email: "analytics-frames-admin@example.com", password: "analytics frames admin password" };
const DAY = 86_400_000;
let server: TestServer;
let adminToken: string;
let north: Account;
let south: Account;
let outsider: Account;
const observatories: Record<string, string> = {};
const { must } = jsonApi(() => server);

const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const analysedFrame = (fields: Partial<FrameDoc>): FrameDoc => ({
  ...queuedFrameAnalysis(),
  analysisId: randomUUID(),
  status: "analysed",
  stars: 80,
  grade: "accepted",
  analysedAt: daysAgo(0),
  ...fields,
});

beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  [north, south, outsider] = [await createAccount(server), await createAccount(server), await createAccount(server)];
  const { db } = server.server.runtime.deps;
  const seed = async (owner: Account, name: string, frames: Array<FrameDoc | null>) => {
    const observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name } }, 201)) as { id: string }).id;
    const projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name } }, 201)) as { id: string }).id;
    const observation = await observationsCollection.insert(db, observationDocument({ projectId, observatoryId, ownerId: owner.id }, { status: "completed" }));
    for (const [index, frame] of frames.entries())
      await filesCollection.insert(db, fileDocument(observation.id, observatoryId, `frame-${index}.fits`, { kind: "image", frame, sizeBytes: 100 }));
    observatories[name] = observatoryId;
  };
  await seed(north, "North dome", [
    analysedFrame({ fwhmArcsec: 2 }),
    analysedFrame({ fwhmArcsec: 3 }),
    analysedFrame({ fwhmArcsec: 4, grade: "rejected", rejectedFor: ["FWHM_TOO_HIGH"] }),
    // 29 days ago is inside the window; 31 is not.
    analysedFrame({ fwhmArcsec: 5, grade: "rejected", rejectedFor: ["FWHM_TOO_HIGH"], analysedAt: daysAgo(29) }),
    analysedFrame({ fwhmArcsec: 9, analysedAt: daysAgo(31) }),
    // No stars, so no FWHM: counted, and left out of the median.
    analysedFrame({ stars: 0, fwhmArcsec: null }),
    { ...queuedFrameAnalysis(), analysisId: randomUUID(), status: "failed", failure: "The frame cannot be read", analysedAt: daysAgo(1) },
    { ...queuedFrameAnalysis(), analysisId: randomUUID() },
    // Not a frame.
    null,
  ]);
  await seed(south, "South dome", [analysedFrame({ fwhmArcsec: 1.5 })]);
  // What the minute's refresh job does, now.
  await refreshAnalytics(server.server.runtime.deps);
});
afterAll(() => server?.stop());

interface FrameFigures {
  framesAnalysed: number;
  framesFailed: number;
  framesAcceptedShare: number | null;
  framesByObservatory: Array<{
    observatoryId: string;
    observatoryName: string | null;
    analysed: number;
    accepted: number;
    failed: number;
    acceptedShare: number | null;
    medianFwhmArcsec: number | null;
  }>;
}

describe("analytics of frames", () => {
  it("gives server admins the frames analysed, the accepted share and the median FWHM per observatory over the last 30 days", async () => {
    const figures = (await must("/api/v1/admin/analytics", { token: adminToken }, 200)) as FrameFigures;
    expect(figures).toMatchObject({ framesAnalysed: 6, framesFailed: 1 });
    expect(figures.framesAcceptedShare).toBeCloseTo(4 / 6);
    expect(figures.framesByObservatory).toEqual([
      {
        observatoryId: observatories["North dome"],
        observatoryName: "North dome",
        analysed: 5,
        accepted: 3,
        failed: 1,
        acceptedShare: 0.6,
        medianFwhmArcsec: 3.5,
      },
      {
        observatoryId: observatories["South dome"],
        observatoryName: "South dome",
        analysed: 1,
        accepted: 1,
        failed: 0,
        acceptedShare: 1,
        medianFwhmArcsec: 1.5,
      },
    ]);
    // The tRPC face is the same operation.
    const viaTrpc = await trpcData<FrameFigures>(await server.request("/trpc/analytics.system", { token: adminToken }));
    expect(viaTrpc.framesByObservatory).toEqual(figures.framesByObservatory);
  });

  it("gives an observatory's owner the figures of their observatories only, and someone with none nothing", async () => {
    const mine = (await must("/api/v1/user/analytics", { token: north.token }, 200)) as FrameFigures;
    expect(mine).toMatchObject({ framesAnalysed: 5, framesFailed: 1, framesAcceptedShare: 0.6 });
    expect(mine.framesByObservatory.map((entry) => entry.observatoryName)).toEqual(["North dome"]);
    expect(await must("/api/v1/user/analytics", { token: outsider.token }, 200)).toMatchObject({
      framesAnalysed: 0,
      framesFailed: 0,
      framesAcceptedShare: null,
      framesByObservatory: [],
    });
  });

  it("refuses the system's figures to anyone but a server admin, on both faces", async () => {
    await expectProblem(await server.request("/api/v1/admin/analytics"), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request("/api/v1/admin/analytics", { token: south.token }), 403, "FORBIDDEN");
    expect(await trpcErrorCode(await server.request("/trpc/analytics.system", { token: south.token }))).toBe("FORBIDDEN");
    expect(await trpcErrorCode(await server.request("/trpc/analytics.system"))).toBe("UNAUTHENTICATED");
  });
});

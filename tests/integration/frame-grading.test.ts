import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { densestIndexFile, renderSkyFrame } from "../support/sky-frame";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// A project's frameGrading: read with the contract's defaults, changed by PUT /projects/{id}, and its frames graded again.
// Without a star catalog the analysis measures and skips the solve, so it is quick; XPIXSZ and FOCALLEN give the scale (7"/px).
const CATALOG = "/usr/share/astrometry";
const ADMIN = { email: "grading-admin@example.com", password: "grading admin password" };
const DEFAULTS = { maxOffsetArcmin: 10, minStars: 10, maxFwhmArcsec: null, maxEccentricity: null, repeatRejected: false };
let server: TestServer;
let emptyCatalog: string;
beforeAll(async () => {
  emptyCatalog = await fs.mkdtemp(path.join(os.tmpdir(), "no-star-catalog-"));
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", STAR_CATALOG_DIR: emptyCatalog, FRAME_ANALYSIS_TIMEOUT_SECONDS: "300" }));
});
afterAll(async () => {
  await server?.stop().catch(() => undefined);
  await fs.rm(emptyCatalog, { recursive: true, force: true });
});

interface Frame {
  status: string;
  grade: string | null;
  rejectedFor: string[];
  stars: number;
  fwhmArcsec: number | null;
  analysedAt: string;
}

describe("a project's frame grading", () => {
  let owner: Account;
  let projectId: string;
  let frameOf: () => Promise<Frame>;
  const { must, call } = jsonApi(() => server);
  const grade = (frameGrading: Record<string, unknown>, token = owner.token) =>
    call(`/projects/${projectId}`, { method: "PUT", token, json: { frameGrading } });

  beforeAll(async () => {
    owner = await createAccount(server);
    const { key, observation } = await observationWithKey(must, {
      owner,
      project: "Graded",
      observation: {
        name: "Pleiades",
        targets: [{ name: "M45", ra: 56.75, dec: 24.1167, exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] }],
      },
    });
    ({ projectId } = (await must(`/observations/${observation.id}`, { token: owner.token })) as { projectId: string });
    const { bytes } = await renderSkyFrame({
      ra: 56.8,
      dec: 24.05,
      scaleArcsec: 7,
      rotationDeg: 0,
      fwhmPixels: 3.2,
      indexFile: await densestIndexFile(CATALOG),
      cards: [
        ["OBJECT", "M45"],
        ["XPIXSZ", 7],
        ["FOCALLEN", 206.264806],
      ],
    });
    const uploaded = await server.request(`/observations/${observation.id}/files?filename=m45.fits`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array(bytes),
    });
    expect(uploaded.status).toBe(201);
    const { id: fileId } = (await uploaded.json()) as { id: string };
    frameOf = async () => {
      const files = (await must(`/observations/${observation.id}/files`, { token: owner.token })) as { items: Array<{ id: string; frame: Frame }> };
      return files.items.find((item) => item.id === fileId)!.frame;
    };
    await until("the frame's analysis", async () => (await frameOf()).status !== "queued", { timeoutMs: 320_000, intervalMs: 250 });
  }, 400_000);

  it("reads with the contract's defaults, under which the frame is accepted", async () => {
    expect(((await must(`/projects/${projectId}`, { token: owner.token })) as { frameGrading: unknown }).frameGrading).toEqual(DEFAULTS);
    const frame = await frameOf();
    expect(frame).toMatchObject({ status: "analysed", grade: "accepted", rejectedFor: [] });
    expect(frame.stars).toBeGreaterThanOrEqual(20);
    expect(frame.fwhmArcsec).toBeGreaterThan(15);
  });

  it("grades the project's frames again when the grading changes, without analysing them again", async () => {
    const { analysedAt } = await frameOf();
    const stricter = await grade({ minStars: 100_000 });
    expect(stricter.status).toBe(200);
    expect(stricter.body.frameGrading).toEqual({ ...DEFAULTS, minStars: 100_000 });
    expect(await frameOf()).toMatchObject({ grade: "rejected", rejectedFor: ["TOO_FEW_STARS"], analysedAt });

    expect((await grade({ maxFwhmArcsec: 5, maxEccentricity: 0 })).status).toBe(200);
    expect(await frameOf()).toMatchObject({ grade: "rejected", rejectedFor: ["TOO_FEW_STARS", "FWHM_TOO_HIGH", "ELONGATED"] });

    const off = await grade({ minStars: null, maxFwhmArcsec: null, maxEccentricity: null });
    expect(off.body.frameGrading).toEqual({ ...DEFAULTS, minStars: null });
    expect(await frameOf()).toMatchObject({ grade: "accepted", rejectedFor: [], analysedAt });
    expect(((await must(`/projects/${projectId}`, { token: owner.token })) as { frameGrading: unknown }).frameGrading).toEqual({ ...DEFAULTS, minStars: null });
  });

  it("refuses a grading out of bounds or with unknown checks, naming the field, and changes nothing", async () => {
    const before = await frameOf();
    for (const [frameGrading, field] of [
      [{ maxEccentricity: 2 }, "frameGrading.maxEccentricity"],
      [{ minStars: -1 }, "frameGrading.minStars"],
      [{ minStars: 2.5 }, "frameGrading.minStars"],
      [{ maxOffsetArcmin: 0 }, "frameGrading.maxOffsetArcmin"],
      [{ maxFwhmArcsec: "3" }, "frameGrading.maxFwhmArcsec"],
      [{ repeatRejected: null }, "frameGrading.repeatRejected"],
    ] as const) {
      const refused = await grade(frameGrading);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "VALIDATION_FAILED" });
      expect((refused.body.errors as Array<{ path: string }>).map((error) => error.path)).toContain(field);
    }
    const unknown = await grade({ maxAirmass: 2 });
    expect(unknown.body).toMatchObject({ code: "VALIDATION_FAILED" });
    expect(JSON.stringify(unknown.body.errors)).toContain("maxAirmass");
    expect(await frameOf()).toEqual(before);
  });

  it("lets only who manages the project change it: a member gets 403, a stranger 404, no credentials 401", async () => {
    const member = await createAccount(server);
    const stranger = await createAccount(server);
    const gradingNow = async (token: string) => ((await must(`/projects/${projectId}`, { token })) as { frameGrading: unknown }).frameGrading;
    const before = await gradingNow(owner.token);
    await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
    expect((await grade({ minStars: 1 }, member.token)).body).toMatchObject({ code: "FORBIDDEN" });
    expect((await grade({ minStars: 1 }, stranger.token)).body).toMatchObject({ code: "NOT_FOUND" });
    await expectProblem(await server.request(`/projects/${projectId}`, { method: "PUT", json: { frameGrading: { minStars: "x" } } }), 401, "UNAUTHENTICATED");
    expect(await gradingNow(member.token)).toEqual(before);
  });
});

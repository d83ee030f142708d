import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { fitsData16, fitsHeader, renderRandomStars, type CardValue } from "../support/sky-frame";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// observation.progress: per exposure line, the frames counted on it by target, FILTER and EXPTIME, on every read of an observation.
// Without a star catalog the analysis measures and skips the solve (quick); a frame of 40 stars is accepted, a blank one
// rejected (TOO_FEW_STARS under the default minStars of 10).
const ADMIN = { email: "progress-admin@example.com", password: "progress admin password" };
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

/** A small frame with these header cards: 40 stars (accepted), or none (rejected). */
function frame(cards: Array<[string, CardValue]>, withStars: boolean): Buffer {
  if (withStars) return renderRandomStars({ width: 256, height: 256, count: 40, fwhmPixels: 3, cards }).bytes;
  const axes: Array<[string, CardValue]> = [
    ["SIMPLE", true],
    ["BITPIX", 16],
    ["NAXIS", 2],
    ["NAXIS1", 128],
    ["NAXIS2", 128],
    ["BZERO", 32768],
  ];
  return Buffer.concat([fitsHeader([...axes, ...cards]), fitsData16(Float64Array.from({ length: 128 * 128 }, (_, index) => 1000 + ((index * 7) % 13)))]);
}

interface Progress {
  targetName: string;
  filter: string;
  exposureSeconds: number;
  desired: number;
  acquired: number;
  accepted: number;
}
interface ObservationRead {
  id: string;
  progress: Progress[];
  repeatOf: string | null;
}

describe("an observation's progress", () => {
  let owner: Account;
  let observationId: string;
  let projectId: string;
  const { must } = jsonApi(() => server);

  beforeAll(async () => {
    owner = await createAccount(server);
    const { key, observation } = await observationWithKey(must, {
      owner,
      project: "Progress",
      observation: {
        name: "Two targets",
        targets: [
          {
            name: "M45",
            ra: 56.75,
            dec: 24.1167,
            exposures: [
              { filter: "L", exposureSeconds: 60, count: 3, binning: 1 },
              { filter: "R", exposureSeconds: 30, count: 2, binning: 1 },
            ],
          },
          { name: "M42", ra: 83.82, dec: -5.39, exposures: [{ filter: "Ha", exposureSeconds: 60, count: 1, binning: 1 }] },
        ],
      },
    });
    observationId = observation.id;
    ({ projectId } = (await must(`/observations/${observationId}`, { token: owner.token })) as { projectId: string });
    const frames: Array<[string, Buffer]> = [
      [
        "l1.fits",
        frame(
          [
            ["OBJECT", "M45"],
            ["FILTER", "L"],
            ["EXPTIME", 60],
          ],
          true,
        ),
      ],
      // The filter in another case and the exposure 0.4 s off still count on the L line.
      [
        "l2.fits",
        frame(
          [
            ["OBJECT", "m45"],
            ["FILTER", "l"],
            ["EXPTIME", 60.4],
          ],
          true,
        ),
      ],
      [
        "l3-blank.fits",
        frame(
          [
            ["OBJECT", "M45"],
            ["FILTER", "L"],
            ["EXPTIME", 60],
          ],
          false,
        ),
      ],
      [
        "r1.fits",
        frame(
          [
            ["OBJECT", "M45"],
            ["FILTER", "R"],
            ["EXPTIME", 30],
          ],
          true,
        ),
      ],
      // No line of M45 asks for Ha, nor for 61 s of L: these count nowhere.
      [
        "ha.fits",
        frame(
          [
            ["OBJECT", "M45"],
            ["FILTER", "Ha"],
            ["EXPTIME", 60],
          ],
          true,
        ),
      ],
      [
        "l-61s.fits",
        frame(
          [
            ["OBJECT", "M45"],
            ["FILTER", "L"],
            ["EXPTIME", 61],
          ],
          true,
        ),
      ],
      // A camera without a filter wheel writes no FILTER: its frame counts by target and exposure.
      [
        "m42.fits",
        frame(
          [
            ["OBJECT", "M42"],
            ["EXPTIME", 60],
          ],
          true,
        ),
      ],
    ];
    for (const [filename, bytes] of frames) {
      const uploaded = await server.request(`/observations/${observationId}/files?filename=${filename}`, {
        method: "POST",
        token: key,
        headers: { "content-type": "application/octet-stream" },
        body: new Uint8Array(bytes),
      });
      expect(uploaded.status).toBe(201);
    }
    await until(
      "every frame's analysis",
      async () => {
        const files = (await must(`/observations/${observationId}/files`, { token: owner.token })) as { items: Array<{ frame: { status: string } | null }> };
        // The server's previews of the frames are files without a frame.
        return files.items.every((file) => file.frame?.status !== "queued");
      },
      { timeoutMs: 320_000, intervalMs: 250 },
    );
  }, 400_000);

  const expected = (accepted: [number, number, number]): Progress[] => [
    { targetName: "M45", filter: "L", exposureSeconds: 60, desired: 3, acquired: 3, accepted: accepted[0] },
    { targetName: "M45", filter: "R", exposureSeconds: 30, desired: 2, acquired: 1, accepted: accepted[1] },
    { targetName: "M42", filter: "Ha", exposureSeconds: 60, desired: 1, acquired: 1, accepted: accepted[2] },
  ];
  const reads = async () => {
    const input = encodeURIComponent(JSON.stringify({ id: observationId }));
    const listInput = encodeURIComponent(JSON.stringify({ q: "Two targets" }));
    const [one, page, viaTrpc, trpcPage] = await Promise.all([
      must(`/observations/${observationId}`, { token: owner.token }) as Promise<ObservationRead>,
      must("/observations?q=Two%20targets", { token: owner.token }) as Promise<{ items: ObservationRead[] }>,
      trpcData<ObservationRead>(await server.request(`/trpc/observations.get?input=${input}`, { token: owner.token })),
      trpcData<{ items: ObservationRead[] }>(await server.request(`/trpc/observations.list?input=${listInput}`, { token: owner.token })),
    ]);
    return [one, page.items.find((item) => item.id === observationId)!, viaTrpc, trpcPage.items.find((item) => item.id === observationId)!];
  };

  it("counts each line's frames by target, filter and exposure, on every read of the observation; a frame matching no line counts nowhere", async () => {
    for (const read of await reads()) {
      expect(read.progress).toEqual(expected([2, 1, 1]));
      expect(read.repeatOf).toBeNull();
    }
  });

  it("follows the project's grading: regrading changes what is accepted, on the next read", async () => {
    await must(`/projects/${projectId}`, { method: "PUT", token: owner.token, json: { frameGrading: { minStars: 100_000 } } }, 200);
    for (const read of await reads()) expect(read.progress).toEqual(expected([0, 0, 0]));
    await must(`/projects/${projectId}`, { method: "PUT", token: owner.token, json: { frameGrading: { minStars: 0 } } }, 200);
    for (const read of await reads()) expect(read.progress).toEqual(expected([3, 1, 1]));
  });
});

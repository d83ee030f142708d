import { createHash } from "node:crypto";
import { filesCollection, type FileDoc } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesOf, createAccount, describeAuthSuite, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import type { TestServer } from "../support/test-server";
import { readZip } from "../support/zip-reading";

// GET /frames (and tRPC frames.search) and POST /frames/archive. Frames are uploaded through the plugin's upload as real (tiny)
// FITS files; their analyses are then written as the analysis job would leave them, with known solved centres, so that no
// solver runs. The server runs no worker: nothing else touches the frames.
const ADMIN = { email: "frames-search-admin@example.com", password: "frames search admin password" };
let server: TestServer;
const { must } = jsonApi(() => server);

interface Placed {
  ra: number;
  dec: number;
}
interface FrameFields {
  centre?: Placed;
  filter?: string;
  dateObs?: string;
  grade?: "accepted" | "rejected";
}
interface Uploaded {
  id: string;
  name: string;
  sha256: string;
  fields: FrameFields;
  observatoryId: string;
  projectId: string;
}
interface Page {
  items: Array<{ id: string; filename: string; createdAt: string; frame: { solution: Placed | null } | null }>;
  nextCursor: string | null;
}

const card = (text: string) => text.padEnd(80, " ");
/** A small, valid FITS image (2-D, 8 bits), its bytes told apart by `tag`. */
function fitsBytes(tag: string): Buffer {
  const value = (key: string, text: string) => card(`${key.padEnd(8)}= ${text.padStart(20)}`);
  const header = [
    value("SIMPLE", "T"),
    value("BITPIX", "8"),
    value("NAXIS", "2"),
    value("NAXIS1", "4"),
    value("NAXIS2", "4"),
    card(`COMMENT ${tag}`),
    card("END"),
  ];
  const data = Buffer.alloc(2880);
  data.write(tag, "ascii");
  return Buffer.concat([Buffer.from(header.join("").padEnd(2880, " "), "ascii"), data]);
}

/** A frame's analysis as the job leaves it: solved at `centre` when given, else NOT_SOLVED. */
function analysed(fields: FrameFields, analysisId: string): NonNullable<FileDoc["frame"]> {
  const { centre, grade = "accepted" } = fields;
  return {
    analysisId,
    status: "analysed",
    failure: null,
    header: {
      object: "Field",
      dateObs: fields.dateObs ?? null,
      exposureSeconds: 60,
      filter: fields.filter ?? null,
      binning: 1,
      width: 4,
      height: 4,
      ra: null,
      dec: null,
      imageType: "LIGHT",
    },
    targetName: "Field",
    stars: 150,
    fwhmArcsec: 2.4,
    hfrArcsec: 1.5,
    eccentricity: 0.3,
    backgroundAdu: 1200,
    solution: centre ? { ...centre, pixelScaleArcsec: 1.2, rotationDeg: 12, widthDeg: 0.6, heightDeg: 0.4 } : null,
    solveFailure: centre ? null : "NOT_SOLVED",
    pointingOffsetArcsec: centre ? 42 : null,
    grade,
    rejectedFor: grade === "rejected" ? ["OFF_TARGET"] : [],
    analysedAt: new Date().toISOString(),
  };
}

/** The great-circle distance in degrees, as the test computes it for its own expectations. */
function separation(a: Placed, b: Placed) {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.dec - a.dec) * rad) / 2) ** 2 + Math.cos(a.dec * rad) * Math.cos(b.dec * rad) * Math.sin(((b.ra - a.ra) * rad) / 2) ** 2;
  return (2 * Math.asin(Math.min(1, Math.sqrt(h)))) / rad;
}

interface Sky {
  key: string;
  observationId: string;
  observatoryId: string;
  projectId: string;
}

async function skyOf(owner: Account, project: string): Promise<Sky> {
  const { key, observation, observatoryId } = await observationWithKey(must, {
    owner,
    project,
    observation: { name: project, targets: [{ name: "Field", ra: 10, dec: 20, exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] }] },
  });
  const { projectId } = (await must(`/observations/${observation.id}`, { token: owner.token })) as { projectId: string };
  return { key, observationId: observation.id, observatoryId, projectId };
}

let uploads = 0;
/** Uploads a frame as its observatory's plugin does, then records its analysis. */
async function frame(sky: Sky, fields: FrameFields, name = `frame-${uploads}.fits`): Promise<Uploaded> {
  uploads += 1;
  const bytes = fitsBytes(`frame ${uploads} ${JSON.stringify(fields)}`);
  const response = await server.request(`/observations/${sky.observationId}/files?filename=${encodeURIComponent(name)}`, {
    method: "POST",
    token: sky.key,
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array(bytes),
  });
  expect(response.status).toBe(201);
  const { id, frame: queued } = (await response.json()) as { id: string; frame: { status: string } | null };
  expect(queued?.status).toBe("queued");
  const db = server.server.runtime.deps.db;
  await filesCollection.update(db, id, (doc) => ({ ...doc, frame: analysed(fields, doc.frame!.analysisId) }));
  return { id, name, sha256: createHash("sha256").update(bytes).digest("hex"), fields, observatoryId: sky.observatoryId, projectId: sky.projectId };
}

let owner: Account;
let stranger: Account;
let skyA: Sky;
let skyB: Sky;
let strangersSky: Sky;
/** Every frame the owner may read, with what it was made with. */
const mine: Uploaded[] = [];
let strangersFrames: Uploaded[] = [];

// Centres around (10, 20), across ra 0/360 on the equator and near the north pole; the distances in the names are from
// the cone each block searches.
const aroundTarget: FrameFields[] = [
  { centre: { ra: 10, dec: 20.5 }, filter: "Ha", dateObs: "2026-11-01T20:00:00", grade: "accepted" },
  { centre: { ra: 11.064, dec: 20 }, filter: "L", dateObs: "2026-11-02T20:00:00", grade: "rejected" },
  { centre: { ra: 10, dec: 18.5 }, filter: "l", dateObs: "2026-11-03T20:00:00.500", grade: "accepted" },
  { centre: { ra: 10, dec: 21.99 }, filter: "L", dateObs: "2026-11-04T20:00:00", grade: "accepted" },
  // Inside the cone's box but not the cone: 2.03° away along the diagonal.
  { centre: { ra: 11.53, dec: 21.44 }, filter: "L", grade: "accepted" },
  { centre: { ra: 10, dec: 23 }, filter: "L", grade: "accepted" },
];
const acrossZero: FrameFields[] = [
  { centre: { ra: 0.3, dec: 0 }, filter: "R" },
  { centre: { ra: 359, dec: 0.2 }, filter: "R" },
  { centre: { ra: 358.7, dec: -0.1 }, filter: "R" },
  { centre: { ra: 1.1, dec: 0 }, filter: "R" },
];
const nearPole: FrameFields[] = [
  { centre: { ra: 180, dec: 89.5 }, filter: "B" },
  { centre: { ra: 90, dec: 88.5 }, filter: "B" },
  { centre: { ra: 275, dec: 88.2 }, filter: "B" },
  { centre: { ra: 180, dec: 86.5 }, filter: "B" },
];

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
  owner = await createAccount(server);
  stranger = await createAccount(server);
  skyA = await skyOf(owner, "Frames A");
  skyB = await skyOf(owner, "Frames B");
  strangersSky = await skyOf(stranger, "Strangers");
  for (const fields of aroundTarget) mine.push(await frame(skyA, fields));
  for (const fields of [...acrossZero, ...nearPole]) mine.push(await frame(skyB, fields));
  // Unsolved: never in a cone, listed without one. Two frames named alike, for the archive's names.
  mine.push(await frame(skyB, { filter: "Ha", grade: "rejected" }, "twin.fits"));
  mine.push(await frame(skyA, { filter: "Ha", grade: "rejected" }, "twin.fits"));
  // The stranger's frames sit on the owner's: the same centres, the same filters.
  strangersFrames = [await frame(strangersSky, aroundTarget[0]!), await frame(strangersSky, acrossZero[0]!)];
}, 120_000);
afterAll(() => server?.stop());

const query = (parameters: Record<string, string | number>) => new URLSearchParams(Object.entries(parameters).map(([name, value]) => [name, String(value)]));
const search = async (parameters: Record<string, string | number>, token = owner.token) => (await must(`/frames?${query(parameters)}`, { token }, 200)) as Page;

/** Every page of a search, `limit` at a time, in order. */
async function walk(parameters: Record<string, string | number>, limit: number, token = owner.token) {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await search({ ...parameters, limit, ...(cursor ? { cursor } : {}) }, token);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...page.items.map((item) => item.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

/** What a cone over the owner's frames must answer, worked out here: within the radius, nearest first. */
const expectedCone = (centre: Placed, radius: number, keep: (frame: Uploaded) => boolean = () => true) =>
  mine
    .filter((frame) => frame.fields.centre && keep(frame))
    .map((frame) => ({ id: frame.id, distance: separation(centre, frame.fields.centre!) }))
    .filter(({ distance }) => distance <= radius)
    .sort((a, b) => a.distance - b.distance)
    .map(({ id }) => id);

describe("GET /frames: a cone search", () => {
  it("answers the frames whose solved centre lies within the radius, nearest first", async () => {
    const page = await search({ ra: 10, dec: 20, radius: 2 });
    const ids = page.items.map((item) => item.id);
    expect(ids).toEqual(expectedCone({ ra: 10, dec: 20 }, 2));
    // By hand: 0.5°, 1.0°, 1.5°, 1.99° away; the frame 2.03° away in the cone's corner and the one 3° away are out.
    expect(ids).toEqual([mine[0]!.id, mine[1]!.id, mine[2]!.id, mine[3]!.id]);
    expect(page.nextCursor).toBeNull();
    expect(page.items[0]!.frame!.solution).toMatchObject({ ra: 10, dec: 20.5 });
  });

  it("finds frames on both sides of ra 0/360", async () => {
    const ids = (await search({ ra: 359.6, dec: 0, radius: 1 })).items.map((item) => item.id);
    const [plus03, at359, at358, plus11] = mine.slice(6, 10);
    // 0.63°, 0.7° and 0.91° away; the frame at ra 1.1 is 1.5° away.
    expect(ids).toEqual([at359!.id, plus03!.id, at358!.id]);
    expect(ids).not.toContain(plus11!.id);
    expect(ids).toEqual(expectedCone({ ra: 359.6, dec: 0 }, 1));
    // From the other side of 0 (0.2°, 0.6° and 1.51° away), and with ra 360 meaning 0.
    expect((await search({ ra: 0.5, dec: 0, radius: 1.6 })).items.map((item) => item.id)).toEqual([plus03!.id, plus11!.id, at359!.id]);
    expect((await search({ ra: 360, dec: 0, radius: 1 })).items.map((item) => item.id)).toEqual(expectedCone({ ra: 0, dec: 0 }, 1));
  });

  it("finds frames across the pole, at every ra", async () => {
    const ids = (await search({ ra: 0, dec: 89, radius: 2.5 })).items.map((item) => item.id);
    expect(ids).toEqual(expectedCone({ ra: 0, dec: 89 }, 2.5));
    const [across, side, far, out] = mine.slice(10, 14);
    // 1.5° away across the pole, 1.8° and 1.98° away at other ras; the last is 4.5° away.
    expect(ids).toEqual([across!.id, side!.id, far!.id]);
    expect(ids).not.toContain(out!.id);
    // A cone holding the pole.
    expect((await search({ ra: 123, dec: 90, radius: 2 })).items.map((item) => item.id)).toEqual(expectedCone({ ra: 123, dec: 90 }, 2));
  });

  it("combines the cone with each filter", async () => {
    const centre = { ra: 10, dec: 20 };
    const cone = { ra: 10, dec: 20, radius: 5 };
    const ids = async (extra: Record<string, string>) => (await search({ ...cone, ...extra })).items.map((item) => item.id);
    expect(await ids({ filter: "l" })).toEqual(expectedCone(centre, 5, (frame) => frame.fields.filter?.toLowerCase() === "l"));
    expect(await ids({ filter: "HA" })).toEqual([mine[0]!.id]);
    expect(await ids({ grade: "rejected" })).toEqual([mine[1]!.id]);
    expect(await ids({ from: "2026-11-02", to: "2026-11-04" })).toEqual([mine[1]!.id, mine[2]!.id]);
    expect(await ids({ from: "2026-11-03T20:00:00.400Z" })).toEqual([mine[2]!.id, mine[3]!.id]);
    expect(await ids({ projectId: skyB.projectId })).toEqual([]);
    expect(await ids({ observatoryId: skyA.observatoryId })).toEqual(expectedCone(centre, 5));
  });
});

describe("GET /frames: filters without a cone", () => {
  it("lists every frame the caller may read, newest upload first, solved or not", async () => {
    const page = await search({ limit: 200 });
    expect(new Set(page.items.map((item) => item.id))).toEqual(new Set(mine.map((frame) => frame.id)));
    const times = page.items.map((item) => item.createdAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it("applies each filter", async () => {
    const ids = async (parameters: Record<string, string>) => new Set((await search({ ...parameters, limit: 200 })).items.map((item) => item.id));
    const where = (keep: (frame: Uploaded) => boolean) => new Set(mine.filter(keep).map((frame) => frame.id));
    expect(await ids({ filter: "ha" })).toEqual(where((frame) => frame.fields.filter === "Ha"));
    expect(await ids({ grade: "accepted" })).toEqual(where((frame) => frame.fields.grade !== "rejected"));
    expect(await ids({ projectId: skyB.projectId })).toEqual(where((frame) => frame.projectId === skyB.projectId));
    expect(await ids({ observatoryId: skyB.observatoryId, filter: "R" })).toEqual(where((frame) => frame.fields.filter === "R"));
    expect(await ids({ to: "2026-11-02T20:00:00.001Z" })).toEqual(new Set([mine[0]!.id, mine[1]!.id]));
  });
});

describe("GET /frames: keyset pages", () => {
  it("walks a cone a page at a time without repeats or gaps", async () => {
    const whole = expectedCone({ ra: 10, dec: 20 }, 10);
    expect(whole.length).toBe(6);
    expect(await walk({ ra: 10, dec: 20, radius: 10 }, 2)).toEqual(whole);
    expect(await walk({ ra: 10, dec: 20, radius: 10 }, 1)).toEqual(whole);
  });

  it("walks the plain list a page at a time as one page gives it", async () => {
    const whole = (await search({ limit: 200 })).items.map((item) => item.id);
    expect(await walk({}, 3)).toEqual(whole);
  });

  it("goes on from where it was when frames are added between pages", async () => {
    const first = await search({ ra: 0, dec: 89, radius: 2.5, limit: 2 });
    // Nearer than every frame of the first page: a cursor that held a position would now skip or repeat.
    const nearer = await frame(skyB, { centre: { ra: 0, dec: 89 }, filter: "B" });
    mine.push(nearer);
    const rest = (await search({ ra: 0, dec: 89, radius: 2.5, limit: 200, cursor: first.nextCursor! })).items.map((item) => item.id);
    const before = first.items.map((item) => item.id);
    expect([...before, ...rest]).toEqual(expectedCone({ ra: 0, dec: 89 }, 2.5, (one) => one.id !== nearer.id));
  });
});

describe("GET /frames: who sees what", () => {
  it("shows a stranger none of another's frames, and the owner none of the stranger's", async () => {
    const theirs = await search({ limit: 200 }, stranger.token);
    expect(theirs.items.map((item) => item.id).sort()).toEqual(strangersFrames.map((one) => one.id).sort());
    const cone = await search({ ra: 10, dec: 20, radius: 10 }, stranger.token);
    expect(cone.items.map((item) => item.id)).toEqual([strangersFrames[0]!.id]);
    const mineOnly = await search({ ra: 10, dec: 20, radius: 0.6 });
    expect(mineOnly.items.map((item) => item.id)).toEqual([mine[0]!.id]);
  });

  it("refuses a caller without credentials with 401 before it reads the query", async () => {
    await expectProblem(await server.request("/frames?ra=abc&radius=99"), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request("/frames/archive", { method: "POST", json: { fileIds: [] } }), 401, "UNAUTHENTICATED");
  });

  it("answers the same page over tRPC (frames.search)", async () => {
    const input = encodeURIComponent(JSON.stringify({ ra: 359.6, dec: 0, radius: 1, limit: 2 }));
    const page = await trpcData<Page>(await server.request(`/trpc/frames.search?input=${input}`, { token: owner.token }));
    const rest = await search({ ra: 359.6, dec: 0, radius: 1, limit: 2 });
    expect(page).toEqual(rest);
    const next = encodeURIComponent(JSON.stringify({ ra: 359.6, dec: 0, radius: 1, limit: 2, cursor: page.nextCursor }));
    const second = await trpcData<Page>(await server.request(`/trpc/frames.search?input=${next}`, { token: owner.token }));
    expect([...page.items, ...second.items].map((item) => item.id)).toEqual(expectedCone({ ra: 359.6, dec: 0 }, 1));
  });
});

describe("GET /frames: bad input", () => {
  const refused = async (parameters: string, paths: string[]) => {
    const problem = await expectProblem(await server.request(`/frames?${parameters}`, { token: owner.token }), 400, "VALIDATION_FAILED");
    expect((problem.errors ?? []).map((error) => error.path).sort()).toEqual(paths.sort());
  };

  it.each([
    ["ra=10&dec=20", ["radius"]],
    ["dec=20", ["ra", "radius"]],
    ["radius=1", ["ra", "dec"]],
    ["ra=10&dec=20&radius=10.5", ["radius"]],
    ["ra=10&dec=20&radius=-1", ["radius"]],
    ["ra=10&dec=20&radius=0", ["radius"]],
    ["ra=360.5&dec=20&radius=1", ["ra"]],
    ["ra=-1&dec=20&radius=1", ["ra"]],
    ["ra=10&dec=91&radius=1", ["dec"]],
    ["ra=ten&dec=20&radius=1", ["ra"]],
    ["ra=&dec=20&radius=1", ["ra"]],
    ["grade=good", ["grade"]],
    ["from=yesterday", ["from"]],
    ["limit=201", ["limit"]],
    ["cursor=nonsense", ["cursor"]],
  ])("refuses %s naming the field", async (parameters, paths) => {
    await refused(parameters, paths);
  });

  it("refuses a cursor of another query's kind", async () => {
    const listCursor = (await search({ limit: 1 })).nextCursor!;
    await refused(`ra=10&dec=20&radius=5&cursor=${listCursor}`, ["cursor"]);
  });
});

describe("GET /frames: the search follows each write of a frame", () => {
  it("finds a regraded frame by its new grade and a frame sent for analysis again no longer by its old centre", async () => {
    const sky = await skyOf(owner, "Frames C");
    const centre = { ra: 200, dec: -30 };
    const [kept, again] = [await frame(sky, { centre }), await frame(sky, { centre: { ra: 200.2, dec: -30 } })];
    const ids = async (parameters: Record<string, string | number>) => (await search({ projectId: sky.projectId, ...parameters })).items.map((item) => item.id);
    expect(await ids({ grade: "rejected" })).toEqual([]);
    // The project asks for more stars than the frames hold: the regrade rewrites their grades with SQL (jsonb_set).
    await must(`/projects/${sky.projectId}`, { method: "PUT", token: owner.token, json: { frameGrading: { minStars: 200 } } }, 200);
    expect(new Set(await ids({ grade: "rejected" }))).toEqual(new Set([kept.id, again.id]));
    expect(await ids({ grade: "accepted" })).toEqual([]);
    expect(await ids({ ...centre, radius: 1 })).toEqual([kept.id, again.id]);
    // Analysed again: queued without a solution until its job runs (no worker here), so it leaves the cone but not the list.
    await must(`/files/${again.id}/analyse`, { method: "POST", token: owner.token }, 202);
    expect(await ids({ ...centre, radius: 1 })).toEqual([kept.id]);
    expect(new Set(await ids({}))).toEqual(new Set([kept.id, again.id]));
    expect(await ids({ grade: "rejected" })).toEqual([kept.id]);
  });
});

describe("POST /frames/archive", () => {
  const archive = (fileIds: string[], token = owner.token) => server.request("/frames/archive", { method: "POST", token, json: { fileIds } });

  it("answers the chosen frames as a ZIP holding their uploaded bytes, each under a name of its own", async () => {
    const chosen = [mine[0]!, mine[7]!, ...mine.filter((one) => one.name === "twin.fits")];
    const response = await archive(chosen.map((one) => one.id));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    const body = await bytesOf(response);
    expect(Number(response.headers.get("content-length"))).toBe(body.length);
    const entries = await readZip(body);
    expect(entries.map((entry) => entry.name)).toEqual([chosen[0]!.name, chosen[1]!.name, "twin.fits", "twin (2).fits"]);
    expect(entries.map((entry) => entry.sha256)).toEqual(chosen.map((one) => one.sha256));
  });

  it("refuses before sending anything when an id names no frame the caller may read", async () => {
    const problem = await expectProblem(await archive([mine[0]!.id, strangersFrames[0]!.id, "fil_unknown"]), 404, "NOT_FOUND");
    expect(problem.errors?.map((error) => error.path)).toEqual(["fileIds.1", "fileIds.2"]);
    await expectProblem(await archive([mine[0]!.id], stranger.token), 404, "NOT_FOUND");
  });

  it("refuses an empty, repeated or oversized selection", async () => {
    await expectProblem(await archive([]), 400, "VALIDATION_FAILED");
    await expectProblem(await archive([mine[0]!.id, mine[0]!.id]), 400, "VALIDATION_FAILED");
    await expectProblem(await archive(Array.from({ length: 201 }, (_, at) => `fil_${at}`)), 400, "VALIDATION_FAILED");
  });
});

describeAuthSuite(() => server, {
  method: "GET",
  path: "/frames?ra&dec&radius",
  prepare: () => ({ path: "/frames?ra=10&dec=20&radius=1&filter=L" }),
  success: 200,
});

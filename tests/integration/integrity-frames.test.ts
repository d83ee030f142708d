import { randomUUID } from "node:crypto";
import { filesCollection, observationsCollection, type FileDoc, type FrameDoc, type ObservationDoc } from "@meridian/db";
import { runIntegrityScan } from "@meridian/domain/integrity";
import { queuedFrameAnalysis } from "@meridian/rules/frames";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { fileDocument, observationDocument } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";

// The contract's two frame checks: FRAME_NOT_ANALYSED (a frame still queued an hour after its
// upload; repaired by queuing its analysis) and OFF_TARGET (a completed observation whose solved
// frames all missed its target). The frames' states are written directly: no solver runs here.
// The server runs no worker, so a scan runs when the test runs it and a queued analysis stays a job to count.
const ADMIN = { email: "integrity-frames-admin@example.com", password: "integrity frames admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
let observatoryId: string;
let projectId: string;
let uncheckedProjectId: string;
const { must } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;

beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  owner = await createAccount(server);
  observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Frames dome" } }, 201)) as { id: string }).id;
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Graded" } }, 201)) as { id: string }).id;
  uncheckedProjectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Offsets off" } }, 201)) as { id: string }).id;
  await must(`/projects/${uncheckedProjectId}`, { method: "PUT", token: owner.token, json: { frameGrading: { maxOffsetArcmin: null } } }, 200);
});
afterAll(() => server?.stop());

interface Issue {
  id: string;
  documentId: string;
  collection: string;
  code: string;
  severity: string;
  type: string;
  message: string;
  autoFixable: boolean;
  status: string;
  observationId?: string;
  nextStep?: string;
  fix: { description: string; changes: Array<Record<string, unknown>> } | null;
  repair?: { verified: boolean; result: Record<string, unknown> };
}

const frame = (fields: Partial<FrameDoc> = {}): FrameDoc => ({ ...queuedFrameAnalysis(), analysisId: randomUUID(), ...fields });
/** A frame analysed and solved, its centre `offsetArcsec` from its target. */
const solvedFrame = (offsetArcsec: number) =>
  frame({
    status: "analysed",
    targetName: "Rigel",
    stars: 120,
    fwhmArcsec: 2.4,
    solution: { ra: 78.63, dec: -8.2, pixelScaleArcsec: 1.2, rotationDeg: 0, widthDeg: 1, heightDeg: 0.7 },
    pointingOffsetArcsec: offsetArcsec,
    grade: offsetArcsec > 600 ? "rejected" : "accepted",
    rejectedFor: offsetArcsec > 600 ? ["OFF_TARGET"] : [],
    analysedAt: new Date().toISOString(),
  });
const unsolvedFrame = (solveFailure: "CATALOG_MISSING" | "NOT_SOLVED") =>
  frame({ status: "analysed", stars: 3, solveFailure, grade: "rejected", rejectedFor: ["NOT_SOLVED"], analysedAt: new Date().toISOString() });

const insertObservation = async (fields: Partial<ObservationDoc> = {}) =>
  (
    await observationsCollection.insert(
      deps().db,
      observationDocument({ projectId, observatoryId, ownerId: owner.id }, { name: `Frames ${randomUUID().slice(0, 8)}`, ...fields }),
    )
  ).id;
const insertFrame = async (observationId: string, frameDoc: FrameDoc | null, fields: Partial<FileDoc> = {}) =>
  (
    await filesCollection.insert(
      deps().db,
      fileDocument(observationId, observatoryId, `${randomUUID().slice(0, 8)}.fits`, { kind: "image", frame: frameDoc, ...fields }),
    )
  ).id;
/** The record as an upload `hours` ago left it, untouched since. */
const writtenHoursAgo = (fileId: string, hours: number) =>
  deps().db.execute(
    sql`update files set created_at = now() - make_interval(hours => ${hours}), updated_at = now() - make_interval(hours => ${hours}) where id = ${fileId}`,
  );
const analysisJobs = (fileId: string) =>
  deps().db.execute<{ analysis_id: string }>(
    sql`select payload->>'analysisId' as analysis_id from graphile_worker._private_jobs where payload->>'fileId' = ${fileId}`,
  );
const analysisIdOf = async (fileId: string) => (await filesCollection.get(deps().db, fileId))!.doc.frame!.analysisId;

async function scan(json: Record<string, unknown>) {
  const started = (await must("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json }, 202)) as { id: string };
  await runIntegrityScan({ deps: deps(), scanId: started.id });
  expect(await must(`/api/v1/admin/integrity/scans/${started.id}`, { token: adminToken }, 200)).toMatchObject({ status: "completed" });
  return ((await must(`/api/v1/admin/integrity/scans/${started.id}/issues?limit=200`, { token: adminToken }, 200)) as { items: Issue[] }).items;
}
const codesFor = (issues: Issue[], documentId: string) => issues.filter((issue) => issue.documentId === documentId).map((issue) => issue.code);
const repair = (issueId: string) => server.request(`/api/v1/admin/integrity/issues/${issueId}/repair`, { method: "POST", token: adminToken });

describe("integrity: a frame left queued (FRAME_NOT_ANALYSED)", () => {
  it("is found an hour after upload, as an auto-fixable warning whose fix says what the repair does, and not before", async () => {
    const observationId = await insertObservation({ status: "completed" });
    const left = await insertFrame(observationId, frame());
    await writtenHoursAgo(left, 2);
    const fresh = await insertFrame(observationId, frame());
    // Uploaded long ago, asked to be analysed again ten minutes ago: queued since then, not since the upload.
    const askedAgain = await insertFrame(observationId, frame());
    await deps().db.execute(sql`update files set created_at = now() - interval '3 hours', updated_at = now() - interval '10 minutes' where id = ${askedAgain}`);
    const analysed = await insertFrame(observationId, solvedFrame(30));
    await writtenHoursAgo(analysed, 5);
    const notAFrame = await insertFrame(observationId, null, { kind: "other" });
    await writtenHoursAgo(notAFrame, 5);

    const issues = await scan({ kind: "full", collections: ["files"] });
    expect(issues.filter((issue) => issue.documentId === left)).toEqual([
      expect.objectContaining({
        code: "FRAME_NOT_ANALYSED",
        severity: "warning",
        type: "status",
        collection: "files",
        observationId,
        autoFixable: true,
        status: "open",
        fix: { description: expect.stringContaining("POST /files/{id}/analyse"), changes: [{ analyse: "files", id: left }] },
      }),
    ]);
    for (const fine of [fresh, askedAgain, analysed, notAFrame]) expect(codesFor(issues, fine)).not.toContain("FRAME_NOT_ANALYSED");
  });

  it("is repaired by queuing exactly one analysis of the frame, as POST /files/{id}/analyse does", async () => {
    const observationId = await insertObservation({ status: "completed" });
    const left = await insertFrame(observationId, frame());
    await writtenHoursAgo(left, 2);
    const before = await analysisIdOf(left);
    expect(await analysisJobs(left)).toEqual([]);
    const issue = (await scan({ kind: "full", collections: ["files"] })).find((found) => found.documentId === left && found.code === "FRAME_NOT_ANALYSED")!;

    const response = await repair(issue.id);
    expect(response.status).toBe(200);
    const repaired = (await response.json()) as Issue;
    const after = await analysisIdOf(left);
    expect(after).not.toBe(before);
    expect(repaired).toMatchObject({ status: "repaired", repair: { verified: true, result: { analysisId: after } } });
    expect((await filesCollection.get(deps().db, left))!.doc.frame).toMatchObject({ status: "queued", analysisId: after });
    expect(await analysisJobs(left)).toEqual([{ analysis_id: after }]);

    // A second repair answers the repaired issue and queues nothing more; a new scan no longer finds the frame.
    expect(((await (await repair(issue.id)).json()) as Issue).status).toBe("repaired");
    expect(await analysisJobs(left)).toEqual([{ analysis_id: after }]);
    expect(codesFor(await scan({ kind: "full", collections: ["files"] }), left)).not.toContain("FRAME_NOT_ANALYSED");
  });

  it("is not repaired once the frame was analysed since the scan (409 DOCUMENT_CHANGED), and nothing is queued", async () => {
    const observationId = await insertObservation({ status: "completed" });
    const left = await insertFrame(observationId, frame());
    await writtenHoursAgo(left, 2);
    const issue = (await scan({ kind: "full", collections: ["files"] })).find((found) => found.documentId === left && found.code === "FRAME_NOT_ANALYSED")!;
    await filesCollection.update(deps().db, left, (doc) => ({ ...doc, frame: { ...solvedFrame(30), analysisId: doc.frame!.analysisId } }));
    await expectProblem(await repair(issue.id), 409, "DOCUMENT_CHANGED");
    expect(await analysisJobs(left)).toEqual([]);
    expect((await filesCollection.get(deps().db, left))!.doc.frame!.status).toBe("analysed");
  });
});

describe("integrity: a completed observation off target (OFF_TARGET)", () => {
  it("is found when none of its solved frames lies within its project's maxOffsetArcmin, as data-quality info, and not otherwise", async () => {
    const seeded: Record<string, string> = {};
    const observationWith = async (label: string, frames: FrameDoc[], fields: Partial<ObservationDoc> = {}) => {
      seeded[label] = await insertObservation({ status: "completed", ...fields });
      for (const frameDoc of frames) await insertFrame(seeded[label], frameDoc);
    };
    // The default grading: 10′ (600″).
    await observationWith("offTarget", [solvedFrame(900), solvedFrame(1300), unsolvedFrame("NOT_SOLVED")]);
    await observationWith("oneOnTarget", [solvedFrame(1300), solvedFrame(300)]);
    await observationWith("atTheLimit", [solvedFrame(600)]);
    await observationWith("noSolvedFrame", [unsolvedFrame("CATALOG_MISSING"), unsolvedFrame("NOT_SOLVED")]);
    await observationWith("noFrames", []);
    await observationWith("checkOff", [solvedFrame(5000)], { projectId: uncheckedProjectId });
    await observationWith("notCompleted", [solvedFrame(5000)], { status: "failed" });

    const issues = await scan({ kind: "full", collections: ["observations"] });
    expect(issues.filter((issue) => issue.documentId === seeded.offTarget)).toEqual([
      expect.objectContaining({
        code: "OFF_TARGET",
        severity: "info",
        type: "data_quality",
        collection: "observations",
        autoFixable: false,
        fix: null,
        nextStep: expect.stringContaining("pointing"),
      }),
    ]);
    const found = issues.find((issue) => issue.documentId === seeded.offTarget)!;
    expect(found.message).toContain("None of its 2 solved frames lies within 10′");
    expect(found.message).toContain("15.0′");
    for (const label of ["oneOnTarget", "atTheLimit", "noSolvedFrame", "noFrames", "checkOff", "notCompleted"])
      expect(codesFor(issues, seeded[label]!), label).not.toContain("OFF_TARGET");
    // A person settles it: no repair.
    await expectProblem(await repair(found.id), 409, "NOT_AUTO_FIXABLE");
  });
});

describe("integrity: a frame's preview, which the server makes after the analysis", () => {
  it("is not reported missing while the frame waits for its analysis, and is, with what to do, once the analysis ended without one", async () => {
    const observationId = await insertObservation({ status: "completed" });
    const waiting = await insertFrame(observationId, frame());
    const analysed = await insertFrame(observationId, solvedFrame(30));
    const previewed = await insertFrame(observationId, solvedFrame(30));
    await filesCollection.insert(deps().db, fileDocument(observationId, observatoryId, "previewed.png", { kind: "preview", previewOfId: previewed }));

    const issues = await scan({ kind: "full", collections: ["files"], checkStorage: true });
    expect(codesFor(issues, waiting)).not.toContain("MISSING_PREVIEW");
    expect(codesFor(issues, previewed)).not.toContain("MISSING_PREVIEW");
    expect(issues.find((issue) => issue.documentId === analysed && issue.code === "MISSING_PREVIEW")).toMatchObject({
      severity: "info",
      message: expect.stringContaining("was analysed but has no preview"),
      nextStep: expect.stringContaining("POST /files/{id}/analyse"),
    });
  });
});

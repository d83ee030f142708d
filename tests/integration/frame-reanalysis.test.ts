import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { densestIndexFile, renderSkyFrame } from "../support/sky-frame";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// POST /files/{id}/analyse: a frame analysed again, after a star catalog was installed, say.
const CATALOG = "/usr/share/astrometry";
const ADMIN = { email: "reanalysis-admin@example.com", password: "reanalysis admin password" };
const POINTING = { ra: 56.8, dec: 24.05 };
const servers: TestServer[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const server of servers.reverse()) await server.stop().catch(() => undefined);
  for (const folder of folders) await fs.rm(folder, { recursive: true, force: true });
});

async function start(env: Record<string, string>) {
  const { server } = await startServerWithAdmin(ADMIN, env);
  servers.push(server);
  return server;
}

interface FileRead {
  id: string;
  frame: { status: string; solveFailure: string | null; solution: unknown; grade: string | null; rejectedFor: string[] } | null;
}

function api(server: TestServer) {
  const { must } = jsonApi(() => server);
  const observation = (owner: Account) =>
    observationWithKey(must, {
      owner,
      project: "Reanalysis",
      observation: {
        name: "Pleiades",
        targets: [{ name: "M45", ra: 56.75, dec: 24.1167, exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] }],
      },
    });
  const upload = async (observationId: string, key: string, filename: string, bytes: Buffer) => {
    const response = await server.request(`/observations/${observationId}/files?filename=${encodeURIComponent(filename)}`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array(bytes),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as FileRead;
  };
  const analysed = (owner: Account, observationId: string, fileId: string) =>
    until(
      `the analysis of ${fileId}`,
      async () => {
        const files = (await must(`/observations/${observationId}/files`, { token: owner.token })) as { items: FileRead[] };
        const file = files.items.find((item) => item.id === fileId)!;
        return file.frame?.status !== "queued" && file;
      },
      { timeoutMs: 320_000, intervalMs: 250 },
    );
  return { must, observation, upload, analysed };
}

const renderFrame = async () =>
  (
    await renderSkyFrame({
      ...POINTING,
      scaleArcsec: 7,
      rotationDeg: 12,
      fwhmPixels: 3.2,
      indexFile: await densestIndexFile(CATALOG),
      // No pointing or scale cards: the suite's one frame of real sky solved blind, as the contract says a frame without them is
      // (15 s of CPU, where the others' hints take 1 s).
      cards: [["OBJECT", "M45"]],
    })
  ).bytes;

describe("analysing a frame again", () => {
  it("solves a frame analysed without a catalog (CATALOG_MISSING) once the catalog is installed", { timeout: 700_000 }, async () => {
    const catalog = await fs.mkdtemp(path.join(os.tmpdir(), "late-star-catalog-"));
    folders.push(catalog);
    const server = await start({ MERIDIAN_ROLE: "all", STAR_CATALOG_DIR: catalog, FRAME_ANALYSIS_TIMEOUT_SECONDS: "300" });
    const { observation, upload, analysed } = api(server);
    const owner = await createAccount(server);
    const { key, observation: created } = await observation(owner);
    const file = await upload(created.id, key, "m45.fits", await renderFrame());
    expect((await analysed(owner, created.id, file.id)).frame).toMatchObject({ status: "analysed", solveFailure: "CATALOG_MISSING", solution: null });

    // The catalog arrives; the owner asks for the analysis again.
    for (const name of await fs.readdir(CATALOG)) await fs.symlink(path.join(CATALOG, name), path.join(catalog, name));
    const queued = await server.request(`/files/${file.id}/analyse`, { method: "POST", token: owner.token });
    expect(queued.status).toBe(202);
    expect(((await queued.json()) as FileRead).frame).toMatchObject({ status: "queued", solveFailure: null, grade: null });
    const solved = (await analysed(owner, created.id, file.id)).frame!;
    expect(solved).toMatchObject({ status: "analysed", solveFailure: null, grade: "accepted", rejectedFor: [] });
    expect(solved.solution).not.toBeNull();
  });
});

describe("asking for a frame's analysis again (no worker: the jobs stay queued)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start({ STAR_CATALOG_DIR: CATALOG });
  });

  it("replaces the frame's waiting job with one for a fresh analysis", async () => {
    const { observation, upload } = api(server);
    const owner = await createAccount(server);
    const { key, observation: created } = await observation(owner);
    const file = await upload(created.id, key, "m45.fits", await renderFrame());
    const { db } = server.server.runtime.deps;
    const jobs = () =>
      db.execute<{ analysis_id: string }>(
        sql`select j.payload->>'analysisId' as analysis_id from graphile_worker._private_jobs j where j.payload->>'fileId' = ${file.id}`,
      );
    const analysisId = async () => (await db.execute<{ id: string }>(sql`select doc->'frame'->>'analysisId' as id from files where id = ${file.id}`))[0]!.id;
    const first = await analysisId();
    expect(await jobs()).toEqual([{ analysis_id: first }]);
    await expect(server.request(`/files/${file.id}/analyse`, { method: "POST", token: owner.token }).then((response) => response.status)).resolves.toBe(202);
    const second = await analysisId();
    expect(second).not.toBe(first);
    expect(await jobs()).toEqual([{ analysis_id: second }]);
    // The tRPC face is the same operation.
    const viaTrpc = await server.request("/trpc/observations.analyseFile", { method: "POST", token: owner.token, json: { id: file.id } });
    expect((await trpcData<FileRead>(viaTrpc)).frame).toMatchObject({ status: "queued", grade: null });
    const third = await analysisId();
    expect([first, second]).not.toContain(third);
    expect(await jobs()).toEqual([{ analysis_id: third }]);
  });

  it("refuses a file that is not a frame (409 NOT_A_FRAME) and an unknown file (404), on both faces", async () => {
    const { observation, upload } = api(server);
    const owner = await createAccount(server);
    const { key, observation: created } = await observation(owner);
    const notes = await upload(created.id, key, "notes.fits", Buffer.from("a text file named like a frame"));
    expect(notes.frame).toBeNull();
    await expectProblem(await server.request(`/files/${notes.id}/analyse`, { method: "POST", token: owner.token }), 409, "NOT_A_FRAME");
    await expectProblem(await server.request("/files/file_made_up/analyse", { method: "POST", token: owner.token }), 404, "NOT_FOUND");
    const viaTrpc = await server.request("/trpc/observations.analyseFile", { method: "POST", token: owner.token, json: { id: notes.id } });
    expect(await trpcErrorCode(viaTrpc)).toBe("NOT_A_FRAME");
  });

  it("answers 401 before the input, 404 to who cannot see the file, 403 to a reader who neither owns nor operates", async () => {
    const { must, observation, upload } = api(server);
    const owner = await createAccount(server);
    const stranger = await createAccount(server);
    const reader = await createAccount(server);
    const { key, observation: created } = await observation(owner);
    const file = await upload(created.id, key, "m45.fits", await renderFrame());
    await expectProblem(await server.request(`/files/${"x".repeat(500)}/analyse`, { method: "POST" }), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request(`/files/${file.id}/analyse`, { method: "POST" }), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request(`/files/${file.id}/analyse`, { method: "POST", token: stranger.token }), 404, "NOT_FOUND");
    const { projectId } = (await must(`/observations/${created.id}`, { token: owner.token })) as { projectId: string };
    await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: reader.email, role: "member" } }, 201);
    await expectProblem(await server.request(`/files/${file.id}/analyse`, { method: "POST", token: reader.token }), 403, "FORBIDDEN");
  });
});

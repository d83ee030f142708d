import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { repeatAfterAnalysis } from "@meridian/domain/frames";
import { addJob, inTransaction } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { fitsData16, fitsHeader, renderRandomStars, type CardValue } from "../support/sky-frame";
import { holdRows } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// The repeat of rejected exposures (contract: "Frames"): an observation that ends completed with lines short of accepted
// frames, once all its frames are analysed, gets one pending repeat of just what is missing when its project asks.
// Without a star catalog the analysis measures and skips the solve (quick); a frame of 40 stars is accepted, a blank one
// rejected (TOO_FEW_STARS under the default minStars of 10).
const ADMIN = { email: "repeats-admin@example.com", password: "repeats admin password" };
let server: TestServer;
let adminToken: string;
let emptyCatalog: string;
beforeAll(async () => {
  emptyCatalog = await fs.mkdtemp(path.join(os.tmpdir(), "no-star-catalog-"));
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", STAR_CATALOG_DIR: emptyCatalog, FRAME_ANALYSIS_TIMEOUT_SECONDS: "300" }));
});
afterAll(async () => {
  await server?.stop().catch(() => undefined);
  await fs.rm(emptyCatalog, { recursive: true, force: true });
});
const { must, scanToEnd } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;

/** A small frame of M45 with these cards: 40 stars (accepted), or none (rejected). */
function frame(filter: string, exposureSeconds: number, withStars: boolean, object = "M45"): Buffer {
  const cards: Array<[string, CardValue]> = [
    ["OBJECT", object],
    ["FILTER", filter],
    ["EXPTIME", exposureSeconds],
  ];
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

interface ObservationRead {
  id: string;
  name: string;
  status: string;
  projectId: string;
  targets: Array<{ name: string; exposures: Array<{ filter: string; exposureSeconds: number; count: number }> }>;
  progress: Array<{ desired: number; acquired: number; accepted: number }>;
  repeatOf: string | null;
  repeatId: string | null;
}
interface HistoryEntry {
  from: string | null;
  to: string;
  actor: { kind: string; id: string };
  reason: string | null;
}

const m45 = (exposures: Array<{ filter: string; exposureSeconds: number; count: number }>) => ({
  name: "M45",
  ra: 56.75,
  dec: 24.1167,
  exposures: exposures.map((exposure) => ({ ...exposure, binning: 1 })),
});

/** An observation of `owner`'s on a new observatory, in a new project whose frameGrading.repeatRejected is `repeatRejected`. */
async function scene(owner: Account, targets: unknown[], repeatRejected: boolean) {
  const name = `Pleiades ${randomUUID().slice(0, 6)}`;
  const { key, observation } = await observationWithKey(must, { owner, project: "Repeats", observation: { name, targets } });
  const { projectId } = (await must(`/observations/${observation.id}`, { token: owner.token })) as ObservationRead;
  await must(`/projects/${projectId}`, { method: "PUT", token: owner.token, json: { frameGrading: { repeatRejected } } }, 200);
  return { id: observation.id, name, key, projectId };
}

async function upload(observationId: string, key: string, bytes: Buffer): Promise<string> {
  const response = await server.request(`/observations/${observationId}/files?filename=${randomUUID()}.fits`, {
    method: "POST",
    token: key,
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array(bytes),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

const read = (owner: Account, id: string) => must(`/observations/${id}`, { token: owner.token }) as Promise<ObservationRead>;

const allAnalysed = (owner: Account, observationId: string) =>
  until(
    "every frame's analysis",
    async () => {
      const files = (await must(`/observations/${observationId}/files`, { token: owner.token })) as { items: Array<{ frame: { status: string } | null }> };
      return files.items.every((file) => file.frame?.status !== "queued");
    },
    { timeoutMs: 320_000, intervalMs: 250 },
  );

/** Through to `end` as the observatory's operator moves it (its owner, who may): the answer of the last move. */
async function runTo(owner: Account, observationId: string, end = "completed"): Promise<ObservationRead> {
  let moved: ObservationRead | undefined;
  for (const status of ["assigned", "in_progress", "acquisition_complete", end])
    moved = (await must(`/observations/${observationId}/status`, { method: "POST", token: owner.token, json: { status } }, 200)) as ObservationRead;
  return moved!;
}

const history = async (owner: Account, observationId: string) =>
  ((await must(`/observations/${observationId}/history`, { token: owner.token })) as { items: HistoryEntry[] }).items;

const repeatsOf = async (observationId: string) =>
  (await deps().db.execute<{ id: string }>(sql`select id from observations where doc->>'repeatOf' = ${observationId}`)).map((row) => row.id);

/** The text of the email telling `email` that the observation named `name` completed. */
const completedEmail = async (email: string, name: string) => {
  const [row] = await deps().db.execute<{ text: string }>(
    sql`select doc->>'text' as text from email_outbox where doc->>'to' = ${email.toLowerCase()} and doc->>'subject' = ${`${name}: completed`}`,
  );
  return row?.text;
};

describe("the repeat of rejected exposures", () => {
  let owner: Account;
  beforeAll(async () => {
    owner = await createAccount(server);
  });

  it("is made once the last frame's analysis ends after the completion, of only the missing exposures, named and in the source's history", async () => {
    const source = await scene(
      owner,
      [
        m45([
          { filter: "L", exposureSeconds: 60, count: 3 },
          { filter: "R", exposureSeconds: 30, count: 1 },
        ]),
        { name: "M42", ra: 83.82, dec: -5.39, exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] },
      ],
      true,
    );
    await upload(source.id, source.key, frame("L", 60, true));
    await upload(source.id, source.key, frame("R", 30, true));
    await upload(source.id, source.key, frame("L", 60, true, "M42"));
    await allAnalysed(owner, source.id);
    // The last frame's analysis waits to write (it reads the project's grading FOR SHARE) until the observation has ended.
    const hold = await holdRows(server.databaseUrl, `select id from projects where id = '${source.projectId}' for no key update`);
    try {
      await upload(source.id, source.key, frame("L", 60, false));
      await until("the last analysis waiting to write", () => hold.waiting(), { timeoutMs: 320_000, intervalMs: 100 });
      const ended = await runTo(owner, source.id);
      expect(ended).toMatchObject({ status: "completed", repeatId: null });
      // The email says how the frames fared as it is written: one is still being analysed.
      const email = await completedEmail(owner.email, source.name);
      expect(email).toContain("3 of 4 frames accepted.");
      expect(email).toContain("1 frame is still being analysed");
    } finally {
      await hold.release();
    }

    const repeatId = await until("the repeat", async () => (await read(owner, source.id)).repeatId ?? undefined, { timeoutMs: 30_000 });
    const repeat = await read(owner, repeatId);
    expect(repeat).toMatchObject({ name: `${source.name} (repeat 1)`, status: "pending", repeatOf: source.id, repeatId: null, projectId: source.projectId });
    // Only what is missing: two more L frames of M45; the R line and M42 have theirs.
    expect(repeat.targets).toEqual([{ ...m45([{ filter: "L", exposureSeconds: 60, count: 2 }]), epoch: "J2000" }]);
    expect(repeat.progress).toEqual([{ targetName: "M45", filter: "L", exposureSeconds: 60, desired: 2, acquired: 0, accepted: 0 }]);
    expect(await repeatsOf(source.id)).toEqual([repeatId]);
    const notes = (await history(owner, source.id)).filter((entry) => entry.actor.id === "repeat");
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ from: "completed", to: "completed", actor: { kind: "system", id: "repeat" }, reason: expect.stringContaining(repeatId) });
    expect((await history(owner, repeatId))[0]).toMatchObject({ from: null, to: "pending", actor: { kind: "system", id: "repeat" } });
  });

  it("is judged in the move when every frame was analysed before it; a repeat of a repeat is made, a third is not", async () => {
    const source = await scene(owner, [m45([{ filter: "L", exposureSeconds: 60, count: 2 }])], true);
    await upload(source.id, source.key, frame("L", 60, false));
    await allAnalysed(owner, source.id);
    const first = await runTo(owner, source.id);
    expect(first.repeatId).not.toBeNull();
    expect(await completedEmail(owner.email, source.name)).toContain("0 of 1 frame accepted.");
    expect(await completedEmail(owner.email, source.name)).not.toContain("still being analysed");

    const repeat1 = await read(owner, first.repeatId!);
    expect(repeat1).toMatchObject({ name: `${source.name} (repeat 1)`, repeatOf: source.id });
    expect(repeat1.targets[0]!.exposures).toMatchObject([{ filter: "L", count: 2 }]);
    await upload(repeat1.id, source.key, frame("L", 60, true));
    await upload(repeat1.id, source.key, frame("L", 60, false));
    await allAnalysed(owner, repeat1.id);
    const second = await runTo(owner, repeat1.id, "partially_completed");
    const repeat2 = await read(owner, second.repeatId!);
    expect(repeat2).toMatchObject({ name: `${source.name} (repeat 2)`, repeatOf: repeat1.id });
    expect(repeat2.targets[0]!.exposures).toMatchObject([{ filter: "L", count: 1 }]);

    await upload(repeat2.id, source.key, frame("L", 60, false));
    await allAnalysed(owner, repeat2.id);
    expect(await runTo(owner, repeat2.id)).toMatchObject({ status: "completed", repeatId: null });
    expect(await repeatsOf(repeat2.id)).toEqual([]);
    expect((await history(owner, repeat2.id)).filter((entry) => entry.actor.id === "repeat" && entry.from !== null)).toEqual([]);
  });

  it("is not made when the project does not ask for it, nor when every line has its accepted frames", async () => {
    const notAsked = await scene(owner, [m45([{ filter: "L", exposureSeconds: 60, count: 1 }])], false);
    await upload(notAsked.id, notAsked.key, frame("L", 60, false));
    const met = await scene(owner, [m45([{ filter: "L", exposureSeconds: 60, count: 1 }])], true);
    await upload(met.id, met.key, frame("L", 60, true));
    await allAnalysed(owner, notAsked.id);
    await allAnalysed(owner, met.id);
    for (const { id } of [notAsked, met]) {
      expect(await runTo(owner, id)).toMatchObject({ status: "completed", repeatId: null });
      expect(await repeatsOf(id)).toEqual([]);
      expect((await history(owner, id)).filter((entry) => entry.actor.id === "repeat")).toEqual([]);
    }
    expect(await completedEmail(owner.email, met.name)).toContain("1 of 1 frame accepted.");
  });

  it("is made once however many judge at once (two workers), and not again when a killed analysis's job runs again", async () => {
    // Ended before its project asked: nothing judged yet, so every trigger below finds it due.
    const source = await scene(owner, [m45([{ filter: "L", exposureSeconds: 60, count: 1 }])], false);
    const fileId = await upload(source.id, source.key, frame("L", 60, false));
    await allAnalysed(owner, source.id);
    expect(await runTo(owner, source.id)).toMatchObject({ repeatId: null });
    await must(`/projects/${source.projectId}`, { method: "PUT", token: owner.token, json: { frameGrading: { repeatRejected: true } } }, 200);

    await Promise.all(Array.from({ length: 4 }, () => repeatAfterAnalysis({ deps: deps(), fileId })));
    const made = await repeatsOf(source.id);
    expect(made).toHaveLength(1);
    expect((await read(owner, source.id)).repeatId).toBe(made[0]);

    // A worker killed after the analysis wrote its frame: graphile-worker runs the job again, and its run judges again.
    await deps().db.execute(sql`
      select graphile_worker.add_job('analyse_frame', json_build_object('fileId', id, 'analysisId', doc->'frame'->>'analysisId'))
        from files where id = ${fileId}`);
    await until("the job run again", async () => {
      const [row] = await deps().db.execute<{ waiting: number }>(sql`
        select count(*)::int as waiting from graphile_worker._private_jobs g join graphile_worker._private_tasks k on k.id = g.task_id
         where k.identifier = 'analyse_frame' and g.payload->>'fileId' = ${fileId}`);
      return row!.waiting === 0;
    });
    expect(await repeatsOf(source.id)).toEqual(made);
    expect((await history(owner, source.id)).filter((entry) => entry.actor.id === "repeat")).toHaveLength(1);
  });

  it("is recorded in the source's history by an entry that integrity and analytics do not take for a move", async () => {
    const observer = await createAccount(server);
    const source = await scene(observer, [m45([{ filter: "L", exposureSeconds: 60, count: 1 }])], true);
    await upload(source.id, source.key, frame("L", 60, false));
    await allAnalysed(observer, source.id);
    expect((await runTo(observer, source.id)).repeatId).not.toBeNull();
    expect((await history(observer, source.id)).map((entry) => `${entry.from} → ${entry.to}`).slice(-2)).toEqual([
      "acquisition_complete → completed",
      "completed → completed",
    ]);

    const scan = await scanToEnd<{ id: string; status: string }>({ kind: "quick" }, adminToken);
    const issues = (await must(`/api/v1/admin/integrity/scans/${scan.id}/issues?limit=200`, { token: adminToken })) as {
      items: Array<{ documentId: string; code: string }>;
    };
    expect(issues.items.filter((issue) => issue.documentId === source.id)).toEqual([]);

    // The observer's one observatory completed one observation today, whatever its history holds beside the move.
    const asked = new Date().toISOString();
    await inTransaction(deps(), (t) => addJob({ t, name: "refresh_analytics", payload: { _cron: { ts: asked, backfilled: false } } }));
    const figures = await until("a fresh summary", async () => {
      const summary = (await must("/api/v1/user/analytics", { token: observer.token })) as { computedAt: string; daily: Array<{ completed: number }> };
      return summary.computedAt >= asked ? summary : undefined;
    });
    expect(figures.daily.at(-1)!.completed).toBe(1);
  });
});

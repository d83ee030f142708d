import fs from "node:fs/promises";
import path from "node:path";
import { ObservatorySimulator } from "@meridian/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, terminate, type NodeProcess } from "../support/node-process";
import { observationWithKey } from "../support/observatory-keys";
import type { TestServer } from "../support/test-server";
import { serverOnSmallDisk } from "../support/server-on-small-disk";
import type { Tmpfs } from "../support/tmpfs";
import { until } from "../support/until";

/**
 * A plugin's upload refused for a full disk is a refusal for now: the simulator, on the
 * observatory client, keeps its file and uploads it again after the server's Retry-After, and the
 * observation completes once space is freed. The plugin connects to and uploads to a real server
 * process whose embedded store's folder is on a 16 MB tmpfs, 14 MB of which a ballast file takes;
 * this process, on the same database, runs the worker that assigns the observation.
 */
const MB = 1024 * 1024;
const IMAGE_BYTES = 4 * MB;
const ADMIN = { email: "upload-disk-full-admin@example.com", password: "upload disk full admin password" };

let setup: TestServer;
let disk: Tmpfs | undefined;
let proc: NodeProcess | undefined;
let url: string;
let simulator: ObservatorySimulator | undefined;
const { must } = jsonApi(() => setup);

beforeAll(async () => {
  ({ server: setup } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  ({ disk, proc, url } = await serverOnSmallDisk(setup, { megabytes: 16, ballastMegabytes: 14 }));
}, 120_000);

afterAll(async () => {
  try {
    await simulator?.close();
    if (proc && isRunning(proc)) await terminate(proc, 20_000);
  } finally {
    await disk?.unmount();
    await setup?.stop();
  }
}, 60_000);

const observationOf = (owner: Account, id: string) => must(`/observations/${id}`, { token: owner.token }, 200) as Promise<{ status: string }>;
const filesOf = async (owner: Account, id: string) =>
  ((await must(`/observations/${id}/files`, { token: owner.token }, 200)) as { items: Array<{ id: string; filename: string; sizeBytes: number }> }).items;

describe("an observation's file refused for a full disk", () => {
  it("is uploaded again by the simulator after the Retry-After, and lands once space is freed, the observation completed", async () => {
    const owner = await createAccount(setup);
    const { key, observation } = await observationWithKey(must, {
      owner,
      project: "Full disk plugin",
      observation: {
        name: "Full disk plugin",
        targets: [{ name: "Deneb", ra: 310.36, dec: 45.28, exposures: [{ filter: "Ha", exposureSeconds: 1, count: 1, binning: 1 }] }],
      },
    });
    const lines: string[] = [];
    // The simulator waits out the pause the 507 asks for until the space is freed, not the minute itself.
    const pausesAsked: number[] = [];
    let freeSpace!: () => void;
    const spaceFreed = new Promise<void>((resolve) => (freeSpace = resolve));
    const pause = (ms: number) => {
      pausesAsked.push(ms);
      return spaceFreed;
    };
    simulator = new ObservatorySimulator({ url, key, speed: 1000, imageBytes: IMAGE_BYTES, pause, log: (line) => lines.push(line) });
    const uploaded: Array<{ id: string }> = [];
    simulator.on("file", (file: { id: string }) => uploaded.push(file));
    await simulator.connect();

    // Assigned on connecting; the image does not fit, and the simulator pauses the 60 s the 507 asks before it tries again.
    const waiting = await until(
      "the image's upload to be refused for space and kept",
      async () => lines.find((line) => line.startsWith("upload of Deneb.fits:") && / answered 507: .*INSUFFICIENT_STORAGE.* again in [\d.]+ s$/.test(line)),
      { timeoutMs: 30_000 },
    );
    expect(Number(/ again in ([\d.]+) s$/.exec(waiting)![1])).toBeGreaterThanOrEqual(60);
    expect(pausesAsked[0]).toBeGreaterThanOrEqual(60_000);
    expect((await observationOf(owner, observation.id)).status).toBe("acquisition_complete");
    expect(await filesOf(owner, observation.id)).toEqual([]);

    await fs.rm(path.join(disk!.dir, "ballast"));
    freeSpace();
    await until("the observation to complete", async () => (await observationOf(owner, observation.id)).status === "completed", { timeoutMs: 120_000 });
    const files = await filesOf(owner, observation.id);
    expect(files.map((file) => file.filename).sort()).toEqual(["Deneb.fits", "preview.png"]);
    const image = files.find((file) => file.filename === "Deneb.fits")!;
    expect(image.sizeBytes).toBe(IMAGE_BYTES);
    const download = await fetch(`${url}/files/${image.id}/download`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(IMAGE_BYTES);
    expect(bytes.subarray(0, 6).toString()).toBe("SIMPLE");
    expect(uploaded.map((file) => file.id)).toContain(image.id);
    expect(isRunning(proc!)).toBe(true);
  }, 180_000);
});

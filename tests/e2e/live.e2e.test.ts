import { createHash, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { appUrl, settled, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";
import { fillFirstTarget, nextStep } from "./support/wizard";

// Live updates over the WebSocket: the observations table (as the simulator runs an observation, and around the socket's
// opening) and an observatory's connection. The worker runs in the server process, so dispatch really happens. The
// timeline's behaviour (read again when it ends elsewhere than the page's status, older moves page by page) is in
// apps/web/src/observations/ObservationTimeline.test.tsx.
const suite = browserSuite({ MERIDIAN_ROLE: "all" });
let server: TestServer;
beforeAll(() => {
  server = suite.server();
});
const { api } = suite;

/** A new user's observation (named `<prefix> <tag>`) in a project of theirs, at an observatory of theirs that no plugin serves. */
async function ownObservation(ownerName: string, prefix: string) {
  const owner = await signupUser(server, { name: ownerName });
  const tag = randomBytes(3).toString("hex");
  const observatory = await api<{ id: string }>("/observatories", owner.token, { method: "POST", json: { name: `Dome ${tag}` } });
  const project = await api<{ id: string }>("/projects", owner.token, { method: "POST", json: { name: `Survey ${tag}` } });
  const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 30, count: 1, binning: 1 }] };
  const name = `${prefix} ${tag}`;
  const observation = await api<{ id: string }>("/observations", owner.token, {
    method: "POST",
    json: { name, projectId: project.id, observatoryId: observatory.id, targets: [target] },
  });
  return { owner, observation, name };
}

describe("web app: live updates", { timeout: 120_000 }, () => {
  it("submits through the wizard, watches the simulator run it live in the table, and downloads its file", async () => {
    const owner = await signupUser(server, { name: "Olga Observer" });
    const tag = randomBytes(3).toString("hex");
    const observatory = await api<{ id: string }>("/observatories", owner.token, { method: "POST", json: { name: `Dome ${tag}` } });
    await api("/projects", owner.token, { method: "POST", json: { name: `Survey ${tag}` } });
    const key = await api<{ key: string }>(`/observatories/${observatory.id}/api-keys`, owner.token, { method: "POST", json: { name: "plugin" } });
    // The exposures last until the test has seen "In progress" in the table, however slow the page.
    let endExposures!: () => void;
    const exposuresEnded = new Promise<void>((resolve) => (endExposures = resolve));
    await suite.simulator({ key: key.key, imageBytes: 50_000, sleep: () => exposuresEnded });

    const page = await suite.pages.signInAt(owner.user.name, { email: owner.user.email, password: owner.password }, "observations");
    await page.getByRole("link", { name: "New observation" }).click();
    await page.getByRole("heading", { level: 2, name: /^Step 1 of 5/ }).waitFor(WAIT);
    // Step 1: name, project, observatory.
    await page.getByLabel("Name").fill(`Andromeda ${tag}`);
    await page.getByLabel("Project").selectOption({ label: `Survey ${tag}` });
    await page.getByLabel("Observatory").selectOption({ index: 1 });
    await nextStep(page, 2);
    // Step 2: a target with one exposure.
    await fillFirstTarget(page, { name: "M 31", ra: "10.6847", dec: "41.269", seconds: "2" });
    // Steps 3 and 4: defaults; step 5 (review): submit.
    await nextStep(page, 3);
    await nextStep(page, 4);
    await nextStep(page, 5);
    await page.getByRole("button", { name: "Submit observation" }).click();
    await page.getByRole("heading", { name: `Andromeda ${tag}` }).waitFor(WAIT);
    const observationId = page.url().split("/").pop()!;

    // The table follows the simulator without a reload.
    await page.goto(appUrl(server, "observations"));
    const row = page.getByRole("row").filter({ hasText: `Andromeda ${tag}` });
    await row
      .getByText("In progress")
      .waitFor({ timeout: 60_000 })
      .catch(async (error: unknown) => {
        // Whether the server moved it on and the page missed it, or the simulator never ran it.
        const history = await api<{ items: Array<{ to: string; at: string; actor: unknown }> }>(`/observations/${observationId}/history`, owner.token);
        throw new Error(`${String(error)}\nThe server's history of the observation: ${JSON.stringify(history.items)}`);
      });
    endExposures();
    await row.getByText("Completed").waitFor({ timeout: 60_000 });

    await row.getByRole("link", { name: `Andromeda ${tag}` }).click();
    const download = page.getByRole("link", { name: "Download M 31.fits" });
    await download.waitFor(WAIT);
    await expect.poll(() => page.getByRole("img", { name: "Preview of M 31.fits" }).count()).toBe(1);
    const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
    const path = await file.path();
    const { readFile } = await import("node:fs/promises");
    const bytes = await readFile(path!);
    const files = await api<{ items: Array<{ filename: string; sha256: string; sizeBytes: number }> }>(
      `/observations/${page.url().split("/").pop()}/files`,
      owner.token,
    );
    const stored = files.items.find((item) => item.filename === "M 31.fits")!;
    expect(bytes.length).toBe(stored.sizeBytes);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(stored.sha256);
    await page.getByRole("list", { name: "Status timeline" }).getByText("Completed").waitFor(WAIT);
  });

  it("reads the table again once its live socket opens: a change made before it opened is not missed", async () => {
    const { owner, observation, name } = await ownObservation("Frida First", "Cygnus");

    // The page's next socket reaches the server only when the test says so; until then it is not open.
    const page = await suite.pages.signIn(owner.user.name, { email: owner.user.email, password: owner.password });
    let openSocket!: () => void;
    const socketMayOpen = new Promise<void>((resolve) => (openSocket = resolve));
    await page.routeWebSocket(/\/ws$/, async (socket) => {
      await socketMayOpen;
      socket.connectToServer();
    });
    await page.goto(appUrl(server, "observations"));
    const row = page.getByRole("row").filter({ hasText: name });
    await row.waitFor(WAIT);
    expect(await row.getByText("Cancelled").count()).toBe(0);
    // Changed after the table was read and before its socket opened: no event can reach this page.
    await api(`/observations/${observation.id}/cancel`, owner.token, { method: "POST" });
    openSocket();
    await row.getByText("Cancelled").waitFor(WAIT);
  });

  it("reads the table again when a change is heard while its first read is still on its way", async () => {
    const { owner, observation, name } = await ownObservation("Hugo Held", "Draco");
    const page = await suite.pages.signIn(owner.user.name, { email: owner.user.email, password: owner.password });
    // What the page's socket hears: its welcome (it is registered with the server), then the cancel's event.
    const heard: string[] = [];
    page.on("websocket", (socket) => socket.on("framereceived", ({ payload }) => heard.push(String(payload))));
    const hears = (text: string) => until(`the page's socket to hear ${text}`, async () => heard.some((frame) => frame.includes(text)));

    // The table's first read answers what it found before the cancel, and only once the page has heard of the cancel.
    let heldReads = 0;
    let answered: Promise<void> | undefined;
    await page.route(/\/trpc\/[^?]*observations\.list/, (route) => {
      if (heldReads > 0) return route.fallback();
      heldReads += 1;
      answered = (async () => {
        const response = await route.fetch();
        await hears('"welcome"');
        await api(`/observations/${observation.id}/cancel`, owner.token, { method: "POST" });
        await hears(observation.id);
        // The page may have given that read up by now (its request aborted, when nothing else shared its batch):
        // then there is nothing to answer, and the stale answer cannot arrive at all.
        await route.fulfill({ response }).catch(() => undefined);
      })();
      return answered;
    });
    await page.goto(appUrl(server, "observations"));
    const row = page.getByRole("row").filter({ hasText: name });
    await row.getByText("Cancelled").waitFor(WAIT);
    expect(heldReads).toBe(1);
    // Nothing of the held read outlives the test.
    await answered;
  });
  it("follows the plugin's connection live on the observatory page: Online as it connects, Offline as it leaves, without a reload", async () => {
    const owner = await signupUser(server, { name: `Owner ${randomBytes(3).toString("hex")}` });
    const observatory = await api<{ id: string }>("/observatories", owner.token, { method: "POST", json: { name: `Dome ${randomBytes(3).toString("hex")}` } });
    const key = await api<{ key: string }>(`/observatories/${observatory.id}/api-keys`, owner.token, { method: "POST", json: { name: "plugin" } });
    const page = await suite.pages.signIn(owner.user.name, { email: owner.user.email, password: owner.password });
    await page.goto(appUrl(server, `observatories/${observatory.id}`));
    const connection = page
      .getByRole("term")
      .filter({ hasText: /^Connection$/ })
      .locator("xpath=following-sibling::dd[1]");
    await connection.getByText("Never connected").waitFor(WAIT);
    await settled(page);
    const simulator = await suite.simulator({ key: key.key });
    // Nothing on this page polls: only the pushed change can bring these.
    await connection.getByText("Online", { exact: true }).waitFor(WAIT);
    await connection.getByText(/^Last seen /).waitFor(WAIT);
    await simulator.goodbye();
    await connection.getByText("Offline", { exact: true }).waitFor(WAIT);
  });
});

import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, settled, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

// No worker: nothing is dispatched, so every status on screen is one the test made.
const suite = browserSuite({ MERIDIAN_ROLE: "server" });
let server: TestServer;
beforeAll(() => {
  server = suite.server();
});

async function api<T = { id: string }>(pathname: string, token: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const response = await server.request(pathname, { method: init.method ?? (init.json === undefined ? "GET" : "POST"), token, json: init.json });
  const text = await response.text();
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

const target = { name: "Arcturus", ra: 213.92, dec: 19.18, exposures: [{ filter: "V", exposureSeconds: 5, count: 1, binning: 1 }] };

/** An owner with an observatory and a project, and a second user who observes there and belongs to the project. */
async function observatoryWithObserver() {
  const tag = randomBytes(3).toString("hex");
  const owner = await signupUser(server, { name: `Owner ${tag}` });
  const observer = await signupUser(server, { name: `Observer ${tag}` });
  const observatory = await api("/observatories", owner.token, { json: { name: `Dome ${tag}` } });
  const project = await api("/projects", owner.token, { json: { name: `Survey ${tag}` } });
  await api(`/projects/${project.id}/members`, owner.token, { json: { email: observer.user.email, role: "member" } });
  await api(`/observatories/${observatory.id}/members`, owner.token, { json: { email: observer.user.email, permissions: { can_observe: true } } });
  const submit = (token: string, name: string) =>
    api("/observations", token, { json: { name, projectId: project.id, observatoryId: observatory.id, targets: [target] } });
  return { tag, owner, observer, observatory, project, submit };
}

const rowOf = (page: Page, name: string) => page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
const signIn = (account: { user: { name: string; email: string }; password: string }) =>
  suite.pages.signIn(account.user.name, { email: account.user.email, password: account.password });

describe("web app: operating observations", { timeout: 120_000 }, () => {
  it("pauses and resumes selected rows of the table, reporting each row's result", async () => {
    const { tag, observer, owner, submit } = await observatoryWithObserver();
    const mine = `Mine ${tag}`;
    const theirs = [`Theirs A ${tag}`, `Theirs B ${tag}`];
    await submit(observer.token, mine);
    for (const name of theirs) await submit(owner.token, name);

    const page = await signIn(observer);
    await page.goto(appUrl(server, "observations"));
    await rowOf(page, mine).waitFor(WAIT);
    // By keyboard: Space ticks a row's box; the heading's box takes every row shown.
    await page.getByRole("checkbox", { name: `Select ${mine}` }).focus();
    await page.keyboard.press("Space");
    const bar = page.getByRole("region", { name: "Bulk actions" });
    await bar.getByText("1 observation selected").waitFor(WAIT);
    await page.getByRole("checkbox", { name: "Select every observation shown" }).check();
    await bar.getByText("3 observations selected").waitFor(WAIT);

    await bar.getByRole("button", { name: "Pause" }).click();
    await bar.getByText("1 paused, 2 refused: not allowed.").waitFor(WAIT);
    for (const name of theirs)
      await bar
        .getByRole("listitem")
        .filter({ hasText: `${name}: not allowed` })
        .waitFor(WAIT);
    await rowOf(page, mine).getByText("Paused", { exact: true }).waitFor(WAIT);
    expect(await rowOf(page, mine).locator("[data-bulk-result]").getAttribute("data-bulk-result")).toBe("ok");
    for (const name of theirs) {
      expect(await rowOf(page, name).locator("[data-bulk-result]").getAttribute("data-bulk-result")).toBe("FORBIDDEN");
      await rowOf(page, name).getByText("Pending", { exact: true }).waitFor(WAIT);
    }

    await bar.getByRole("button", { name: "Resume" }).click();
    await bar.getByText("1 resumed, 2 refused: not allowed.").waitFor(WAIT);
    await rowOf(page, mine).getByText("Pending", { exact: true }).waitFor(WAIT);
    await bar.getByRole("button", { name: "Clear selection" }).click();
    await bar.getByText("0 observations selected").waitFor(WAIT);
  });

  it("follows the plugin's connection live on the observatory page: Online as it connects, Offline as it leaves, without a reload", async () => {
    const { owner, observatory } = await observatoryWithObserver();
    const key = await api<{ key: string }>(`/observatories/${observatory.id}/api-keys`, owner.token, { json: { name: "plugin" } });
    const page = await signIn(owner);
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

  it("switches dispatch on the observatory page and removes the observatory once its name is typed", async () => {
    const { tag, owner, observer, observatory, submit } = await observatoryWithObserver();
    const waiting = await submit(owner.token, `Waiting ${tag}`);
    const held = await submit(owner.token, `Held ${tag}`);
    await api(`/observations/${held.id}/pause`, owner.token, { json: {} });

    // Others see dispatch as it is, without a switch.
    const observing = await signIn(observer);
    await observing.goto(appUrl(server, `observatories/${observatory.id}`));
    await observing.getByRole("region", { name: "Dispatch" }).getByText("Dispatch on").waitFor(WAIT);
    expect(await observing.getByRole("switch").count()).toBe(0);
    expect(await observing.getByRole("button", { name: "Remove observatory" }).count()).toBe(0);

    const page = await signIn(owner);
    await page.goto(appUrl(server, `observatories/${observatory.id}`));
    const toggle = page.getByRole("switch", { name: "Dispatch" });
    await toggle.focus();
    await page.keyboard.press("Space");
    await expect.poll(async () => (await api<{ dispatchEnabled: boolean }>(`/observatories/${observatory.id}`, owner.token)).dispatchEnabled).toBe(false);
    await page.getByText("Off: observations wait in the queue; none is sent.").waitFor(WAIT);

    await page.getByRole("button", { name: "Remove observatory" }).click();
    const dialog = page.getByRole("dialog", { name: `Remove Dome ${tag}?` });
    await dialog.getByText("Its queue is cancelled: 1 pending and 1 paused observations").waitFor(WAIT);
    await dialog.getByText("its announcements stop showing (active ones are cancelled, acknowledged ones end)").waitFor(WAIT);
    const confirm = dialog.getByRole("button", { name: "Remove observatory" });
    await dialog.getByLabel("Type the observatory's name to confirm").fill(`Dome ${tag}x`);
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel("Type the observatory's name to confirm").fill(`Dome ${tag}`);
    await confirm.click();
    await page.getByText(`Dome ${tag} was removed.`).waitFor(WAIT);
    expect(await page.getByRole("list", { name: "Observatories" }).getByText(`Dome ${tag}`).count()).toBe(0);

    // Its observations stay, cancelled, with its name.
    await page.goto(appUrl(server, `observations/${waiting.id}`));
    await page.getByText(`Dome ${tag} (removed)`).waitFor(WAIT);
    await page.getByText("Reason: observatory removed").waitFor(WAIT);
  });
});

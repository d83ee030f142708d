import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loginSession } from "../support/auth-suite";
import { signupUser, startTestServer, type TestServer } from "../support/test-server";
import { ensureWebBuilt, launchChromium } from "./support/browser";
import { appUrl, newSignedInPage, WAIT } from "./support/session";

const ADMIN = { email: "root-motd@example.com", password: "admin password 1" };
const suffix = randomBytes(3).toString("hex");
const DOWNTIME = { title: `Planned downtime ${suffix}`, message: "The archive is offline on Saturday from 08:00 to 12:00 UTC." };
const FIRMWARE = `Firmware update ${suffix}`;
const OBSERVATORY = `Dome Motd ${suffix}`;
const GATE = "Announcement from the administrators";

type SignedUp = Awaited<ReturnType<typeof signupUser>>;

let server: TestServer;
let browser: Browser;
let adminToken = "";
/** Every user on the server: the admin and the user signed up here. */
let everyone = 0;
let user: SignedUp;
let adminContext: BrowserContext;
let userContext: BrowserContext;
let adminPage: Page;
let userPage: Page;
const pageErrors: string[] = [];

const app = (route = "") => appUrl(server, route);
const navLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });

async function api<T>(pathname: string, token: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const response = await server.request(pathname, { token, ...init });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const row = (page: Page, table: string, text: string) => page.getByRole("table", { name: table }).getByRole("row").filter({ hasText: text });

beforeAll(async () => {
  const webDist = ensureWebBuilt();
  server = await startTestServer({ WEB_DIST_DIR: webDist, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  adminToken = (await loginSession(server, ADMIN)).token;
  user = await signupUser(server, { name: "Una Reader" });
  browser = await launchChromium();
  [adminContext, adminPage] = await newSignedInPage({ browser, server, email: ADMIN.email, password: ADMIN.password, pageErrors });
}, 180_000);

afterAll(async () => {
  await userContext?.close();
  await adminContext?.close();
  await browser?.close();
  await server?.stop();
});

// On a failure, show where each page was and what it said: a timeout alone tells little.
afterEach(async (context) => {
  if (context.task.result?.state !== "fail") return;
  for (const [label, page] of [
    ["admin", adminPage],
    ["user", userPage],
  ] as const) {
    if (!page || page.isClosed()) continue;
    const text = await page.locator("body").innerText({ timeout: 2_000 }).catch(() => "(no page text)");
    console.error(`${label} page at ${page.url()}:\n${text.slice(0, 2_000)}`);
  }
});

describe("web app: announcements", { timeout: 60_000 }, () => {
  it("lets the admin send a system announcement to all users, previewing the recipient count", async () => {
    await navLink(adminPage, "Announcements").click();
    await adminPage.getByRole("heading", { name: "Announcements", level: 1 }).waitFor(WAIT);
    await row(adminPage, "System announcements", "No system announcements yet.").waitFor(WAIT);

    ({ recipientCount: everyone } = await api<{ recipientCount: number }>("/api/v1/system/motd/preview", adminToken, { method: "POST", json: { targets: { users: { all: true } } } }));
    expect(everyone).toBe(2);

    await adminPage.getByRole("button", { name: "New system announcement" }).click();
    const dialog = adminPage.getByRole("dialog", { name: "New system announcement" });
    await dialog.waitFor(WAIT);
    await dialog.getByText("Choose who receives it.").waitFor(WAIT);

    // Without a target the server refuses, at the recipients.
    await dialog.getByLabel("Title").fill(DOWNTIME.title);
    await dialog.getByLabel("Message").fill(DOWNTIME.message);
    await dialog.getByLabel("Severity").selectOption("warning");
    await dialog.getByRole("button", { name: "Send announcement" }).click();
    await dialog.getByText(/at least one target/i).waitFor(WAIT);

    await dialog.getByLabel("All users").check();
    await dialog.getByText(`It will reach ${everyone} recipients.`).waitFor(WAIT);
    const send = dialog.getByRole("button", { name: `Send to ${everyone} recipients` });
    await send.click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await adminPage.getByText(`${DOWNTIME.title} was sent to ${everyone} recipients.`).first().waitFor(WAIT);

    // The admin is a recipient too, acknowledged as its creator.
    const created = row(adminPage, "System announcements", DOWNTIME.title);
    await created.getByText("Active", { exact: true }).waitFor(WAIT);
    await created.getByText("Warning", { exact: true }).waitFor(WAIT);
    await created.getByText(`1 / ${everyone}`).waitFor(WAIT);
    expect(await adminPage.getByRole("dialog", { name: GATE }).isVisible()).toBe(false);
  });

  it("blocks the user behind a modal until they acknowledge; the admin's recipients view follows live", async () => {
    // The admin watches the recipients while the user signs in.
    await row(adminPage, "System announcements", DOWNTIME.title).getByRole("button", { name: `Recipients of ${DOWNTIME.title}` }).click();
    const drawer = adminPage.getByRole("dialog", { name: `Recipients of ${DOWNTIME.title}` });
    await drawer.waitFor(WAIT);
    const counts = drawer.getByRole("definition");
    // Recipients, acknowledged (the admin, as creator), pending, emailed, seen in the app.
    await expect.poll(() => counts.allInnerTexts(), WAIT).toEqual(["2", "1", "1", "0", "0"]);
    const userRow = row(adminPage, "Recipients", user.user.email);
    await userRow.getByText("Pending", { exact: true }).waitFor(WAIT);

    [userContext, userPage] = await newSignedInPage({ browser, server, email: user.user.email, password: user.password, pageErrors });
    const gate = userPage.getByRole("dialog", { name: GATE });
    await gate.waitFor(WAIT);
    await gate.getByRole("heading", { name: DOWNTIME.title }).waitFor(WAIT);
    await gate.getByText(DOWNTIME.message).waitFor(WAIT);

    // Neither Escape nor the navigation gets past it: the app behind is inert.
    await userPage.keyboard.press("Escape");
    await userPage.keyboard.press("Escape");
    expect(await gate.isVisible()).toBe(true);
    const observatories = navLink(userPage, "Observatories");
    expect(await observatories.evaluate((link) => link.closest("[inert]") !== null)).toBe(true);
    const box = (await observatories.boundingBox())!;
    await userPage.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    expect(new URL(userPage.url()).pathname).toMatch(/^\/app\/?$/);
    expect(await gate.isVisible()).toBe(true);

    await gate.getByRole("button", { name: `Acknowledge ${DOWNTIME.title}` }).click();
    await gate.waitFor({ state: "hidden", ...WAIT });
    expect(await userPage.locator("[inert]").count()).toBe(0);
    await observatories.click();
    await userPage.getByRole("heading", { name: "Observatories", level: 1 }).waitFor(WAIT);
    await navLink(userPage, "Dashboard").click();
    const banners = userPage.getByRole("region", { name: "Announcements" });
    await banners.getByRole("article", { name: DOWNTIME.title }).getByText("Acknowledged").waitFor(WAIT);
    expect((await api<{ items: unknown[] }>("/api/v1/user/motd/pending", user.token)).items).toEqual([]);

    // The admin's drawer caught up without a reload, and knows the modal showed it to the user.
    await expect.poll(() => counts.allInnerTexts(), WAIT).toEqual(["2", "2", "0", "0", "1"]);
    await userRow.getByText("Pending", { exact: true }).waitFor({ state: "detached", ...WAIT });
    await userRow.getByRole("cell").last().locator("time").waitFor(WAIT);
    await drawer.getByLabel("Show").selectOption("pending");
    await row(adminPage, "Recipients", "Nobody is pending.").waitFor(WAIT);
    await drawer.getByRole("button", { name: "Close" }).click();
    await drawer.waitFor({ state: "hidden", ...WAIT });
    await row(adminPage, "System announcements", DOWNTIME.title).getByText("Acknowledged", { exact: true }).waitFor(WAIT);
  });

  it("shows a new system announcement in the modal at once, and cancels it only with a reason", async () => {
    const firmware = await api<{ id: string }>("/api/v1/system/motd", adminToken, {
      method: "POST",
      json: { title: FIRMWARE, message: "Mount firmware 2.1 is being rolled out.", severity: "critical", deliveryType: "message", targets: { users: { ids: [user.user.id] } } },
    });
    // Pushed over the WebSocket: no reload on the user's side.
    const gate = userPage.getByRole("dialog", { name: GATE });
    await gate.getByRole("heading", { name: FIRMWARE }).waitFor(WAIT);
    expect(await userPage.locator("[inert]").count()).toBe(1);

    // The admin was not a recipient; the list shows it once asked for active announcements.
    await adminPage.getByRole("group", { name: "Show system announcements" }).getByRole("button", { name: "Active", exact: true }).click();
    const active = row(adminPage, "System announcements", FIRMWARE);
    await active.getByRole("button", { name: `Cancel ${FIRMWARE}` }).click();
    const dialog = adminPage.getByRole("dialog", { name: "Cancel announcement" });
    const confirm = dialog.getByRole("button", { name: "Cancel announcement" });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel("Reason").fill("   ");
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel("Reason").fill("Wrong firmware version announced");
    expect(await confirm.isEnabled()).toBe(true);
    await confirm.click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await adminPage.getByText(`${FIRMWARE} was cancelled.`).first().waitFor(WAIT);
    await active.waitFor({ state: "detached", ...WAIT });

    // Cancelled, it no longer blocks the user.
    await gate.waitFor({ state: "hidden", ...WAIT });
    expect(await userPage.locator("[inert]").count()).toBe(0);

    await adminPage.getByRole("group", { name: "Show system announcements" }).getByRole("button", { name: "Cancelled", exact: true }).click();
    const cancelled = row(adminPage, "System announcements", FIRMWARE);
    await cancelled.getByText("Cancelled", { exact: true }).waitFor(WAIT);
    expect(await cancelled.getByRole("button", { name: `Cancel ${FIRMWARE}` }).count()).toBe(0);
    await cancelled.getByRole("button", { name: `Recipients of ${FIRMWARE}` }).click();
    const drawer = adminPage.getByRole("dialog", { name: `Recipients of ${FIRMWARE}` });
    await drawer.getByText("Reason: Wrong firmware version announced").waitFor(WAIT);
    await drawer.getByText(/^Cancelled by /).waitFor(WAIT);
    await adminPage.keyboard.press("Escape");
    await drawer.waitFor({ state: "hidden", ...WAIT });

    const list = await api<{ items: Array<{ id: string; status: string; cancellationReason: string | null }> }>("/api/v1/system/motd?status=cancelled", adminToken);
    expect(list.items.find((item) => item.id === firmware.id)).toMatchObject({ status: "cancelled", cancellationReason: "Wrong firmware version announced" });
  });

  it("lets an observatory's owner announce from its page, and marks the observatory in the list", async () => {
    const observatory = await api<{ id: string }>("/observatories", user.token, { method: "POST", json: { name: OBSERVATORY } });
    await userPage.goto(app(`observatories/${observatory.id}`));
    await userPage.getByRole("heading", { name: OBSERVATORY, level: 1 }).waitFor(WAIT);
    await userPage.getByRole("button", { name: "New announcement" }).click();
    const dialog = userPage.getByRole("dialog", { name: "New observatory announcement" });
    await dialog.getByLabel("Title").fill("Roof sensor fault");
    await dialog.getByLabel("Message").fill("The roof stays closed until the rain sensor is replaced.");
    // The server's schedule rule, at its field.
    await dialog.getByLabel("Expires").fill("2020-01-01T10:00");
    await dialog.getByRole("button", { name: "Send to 1 recipient" }).click();
    await dialog.getByText("Must lie in the future").waitFor(WAIT);
    expect(await dialog.getByLabel("Expires").getAttribute("aria-invalid")).toBe("true");
    await dialog.getByLabel("Expires").fill("");
    await dialog.getByRole("button", { name: "Send to 1 recipient" }).click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await userPage.getByRole("tab", { name: "Announcements", selected: true }).waitFor(WAIT);
    await userPage.getByRole("list", { name: "Active observatory announcements" }).getByRole("article", { name: "Roof sensor fault" }).waitFor(WAIT);
    await row(userPage, "Observatory announcement history", "Roof sensor fault").waitFor(WAIT);

    await navLink(userPage, "Observatories").click();
    await userPage.getByRole("listitem", { name: OBSERVATORY }).getByRole("img", { name: "Active announcements" }).waitFor(WAIT);
  });

  it("raised no uncaught errors in the pages", () => {
    expect(pageErrors).toEqual([]);
  });
});

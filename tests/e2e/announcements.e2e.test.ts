import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { loginSession } from "../support/auth-suite";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const ADMIN = { email: "root-motd@example.com", password: "admin password 1" };
const GATE = "Announcement from the administrators";
const tag = () => randomBytes(3).toString("hex");

type SignedUp = Awaited<ReturnType<typeof signupUser>>;

const suite = browserSuite({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
const { pages } = suite;
let server: TestServer;
let adminToken = "";

const app = (route = "") => appUrl(server, route);
const navLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
const credentials = (account: SignedUp) => ({ email: account.user.email, password: account.password });

async function api<T>(pathname: string, token: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const response = await server.request(pathname, { token, ...init });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A system announcement to just these users, made through the API. */
const announceTo = (users: SignedUp[], title: string, fields: Record<string, unknown> = {}) =>
  api<{ id: string }>("/api/v1/system/motd", adminToken, {
    method: "POST",
    json: {
      title,
      message: `About ${title}.`,
      severity: "warning",
      deliveryType: "message",
      targets: { users: { ids: users.map((user) => user.user.id) } },
      ...fields,
    },
  });

const row = (page: Page, table: string, text: string) => page.getByRole("table", { name: table }).getByRole("row").filter({ hasText: text });

/** The admin's announcements page with the recipients drawer of `title` open. */
async function openRecipients(adminPage: Page, title: string) {
  await adminPage.goto(app("announcements"));
  await adminPage.getByRole("group", { name: "Show system announcements" }).getByRole("button", { name: "Active", exact: true }).click();
  await row(adminPage, "System announcements", title)
    .getByRole("button", { name: `Recipients of ${title}` })
    .click();
  const drawer = adminPage.getByRole("dialog", { name: `Recipients of ${title}` });
  await drawer.waitFor(WAIT);
  return drawer;
}

beforeAll(async () => {
  server = suite.server();
  adminToken = (await loginSession(server, ADMIN)).token;
});

describe("web app: announcements", { timeout: 60_000 }, () => {
  it("lets the admin send a system announcement to all users, previewing the recipient count", async () => {
    const title = `Planned downtime ${tag()}`;
    await signupUser(server, { name: "Una Reader" });
    const { recipientCount: everyone } = await api<{ recipientCount: number }>("/api/v1/system/motd/preview", adminToken, {
      method: "POST",
      json: { targets: { users: { all: true } } },
    });
    expect(everyone).toBeGreaterThanOrEqual(2);

    const adminPage = await pages.signIn("admin", ADMIN);
    await navLink(adminPage, "Announcements").click();
    await adminPage.getByRole("heading", { name: "Announcements", level: 1 }).waitFor(WAIT);
    await adminPage.getByRole("button", { name: "New system announcement" }).click();
    const dialog = adminPage.getByRole("dialog", { name: "New system announcement" });
    await dialog.waitFor(WAIT);
    await dialog.getByText("Choose who receives it.").waitFor(WAIT);

    // Without a target the server refuses, at the recipients.
    await dialog.getByLabel("Title").fill(title);
    await dialog.getByLabel("Message").fill("The archive is offline on Saturday from 08:00 to 12:00 UTC.");
    await dialog.getByLabel("Severity").selectOption("warning");
    await dialog.getByRole("button", { name: "Send announcement" }).click();
    await dialog.getByText(/at least one target/i).waitFor(WAIT);

    await dialog.getByLabel("All users").check();
    await dialog.getByText(`It will reach ${everyone} recipients.`).waitFor(WAIT);
    await dialog.getByRole("button", { name: `Send to ${everyone} recipients` }).click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await adminPage.getByText(`${title} was sent to ${everyone} recipients.`).first().waitFor(WAIT);

    // The admin is a recipient too, acknowledged as its creator, so no modal blocks the admin.
    const created = row(adminPage, "System announcements", title);
    await created.getByText("Active", { exact: true }).waitFor(WAIT);
    await created.getByText("Warning", { exact: true }).waitFor(WAIT);
    await created.getByText(`1 / ${everyone}`).waitFor(WAIT);
    await adminPage.getByRole("dialog", { name: GATE }).waitFor({ state: "hidden", ...WAIT });
  });

  it("blocks the user behind a modal that Escape cannot close until they acknowledge; the admin's recipients view follows live", async () => {
    const user = await signupUser(server, { name: "Blocked Reader" });
    const title = `Archive offline ${tag()}`;
    const message = "The archive is offline on Saturday.";
    await announceTo([user], title, { message });

    // The admin watches the recipients while the user signs in.
    const adminPage = await pages.signIn("admin", ADMIN);
    const drawer = await openRecipients(adminPage, title);
    const counts = drawer.getByRole("definition");
    // Recipients, acknowledged, pending, emailed, seen in the app.
    await expect.poll(() => counts.allInnerTexts(), WAIT).toEqual(["1", "0", "1", "0", "0"]);
    const userRow = row(adminPage, "Recipients", user.user.email);
    await userRow.getByText("Pending", { exact: true }).waitFor(WAIT);

    const userPage = await pages.signIn("user", credentials(user));
    const gate = userPage.getByRole("dialog", { name: GATE });
    await gate.getByRole("heading", { name: title }).waitFor(WAIT);
    await gate.getByText(message).waitFor(WAIT);
    // The browser itself keeps it open: no Escape or close request can shut it, not even for a moment.
    await expect.poll(() => gate.getAttribute("closedby")).toBe("none");

    // Neither Escape nor the navigation gets past it: the app behind is inert.
    await userPage.keyboard.press("Escape");
    await userPage.keyboard.press("Escape");
    await expect.poll(() => gate.evaluate((dialog) => (dialog as HTMLDialogElement).open)).toBe(true);
    const observatories = navLink(userPage, "Observatories");
    await expect.poll(() => observatories.evaluate((link) => link.closest("[inert]") !== null)).toBe(true);
    const box = (await observatories.boundingBox())!;
    await userPage.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => new URL(userPage.url()).pathname).toMatch(/^\/app\/?$/);
    await gate.getByRole("button", { name: "Sign out" }).waitFor(WAIT);

    await gate.getByRole("button", { name: `Acknowledge ${title}` }).click();
    await gate.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => userPage.locator("[inert]").count()).toBe(0);
    await observatories.click();
    await userPage.getByRole("heading", { name: "Observatories", level: 1 }).waitFor(WAIT);
    await navLink(userPage, "Dashboard").click();
    const banners = userPage.getByRole("region", { name: "Announcements" });
    await banners.getByRole("article", { name: title }).getByText("Acknowledged").waitFor(WAIT);
    expect((await api<{ items: unknown[] }>("/api/v1/user/motd/pending", user.token)).items).toEqual([]);

    // The admin's drawer caught up without a reload, and knows the modal showed it to the user.
    await expect.poll(() => counts.allInnerTexts(), WAIT).toEqual(["1", "1", "0", "0", "1"]);
    await userRow.getByText("Pending", { exact: true }).waitFor({ state: "detached", ...WAIT });
    await userRow.getByRole("cell").last().locator("time").waitFor(WAIT);
    await drawer.getByLabel("Show").selectOption("pending");
    await row(adminPage, "Recipients", "Nobody is pending.").waitFor(WAIT);
    await drawer.getByRole("button", { name: "Close" }).click();
    await drawer.waitFor({ state: "hidden", ...WAIT });
  });

  it("keeps keyboard focus in sight as each announcement is acknowledged: on the next one's button, then on the page's main content", async () => {
    const user = await signupUser(server);
    const titles = [`Dome repairs ${tag()}`, `Network change ${tag()}`];
    for (const title of titles) await announceTo([user], title);
    const userPage = await pages.signIn("user", credentials(user));
    const gate = userPage.getByRole("dialog", { name: /from the administrators$/ });
    await gate.waitFor(WAIT);
    const acknowledge = gate.getByRole("button", { name: /^Acknowledge / });
    await expect.poll(() => acknowledge.count()).toBe(2);
    const focused = () =>
      userPage.evaluate(() => {
        const element = document.activeElement;
        if (!element || element === document.body) return "body";
        return element.id === "main" ? "main" : (element.textContent ?? "").trim();
      });

    // By keyboard: the first button, disabled while its request runs and then gone; focus goes on to the other's.
    const first = (await acknowledge.first().textContent())!.trim();
    const second = titles.map((title) => `Acknowledge ${title}`).find((name) => name !== first)!;
    await acknowledge.first().focus();
    await userPage.keyboard.press("Enter");
    await expect.poll(() => acknowledge.count()).toBe(1);
    await expect.poll(focused).toBe(second);

    // The last one closes the modal: focus is on the page behind, never left on its body.
    await userPage.keyboard.press("Enter");
    await gate.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => userPage.locator("[inert]").count()).toBe(0);
    await expect.poll(focused).toBe("main");
    expect((await api<{ items: unknown[] }>("/api/v1/user/motd/pending", user.token)).items).toEqual([]);
  });

  it("lets a blocked user sign out from the modal", async () => {
    const user = await signupUser(server);
    const title = `Sign-out check ${tag()}`;
    await announceTo([user], title);
    const userPage = await pages.signIn("user", credentials(user));
    const gate = userPage.getByRole("dialog", { name: GATE });
    await gate.getByRole("heading", { name: title }).waitFor(WAIT);
    await gate.getByRole("button", { name: "Sign out" }).click();
    await userPage.getByRole("button", { name: "Sign in" }).waitFor(WAIT);
    await expect.poll(() => new URL(userPage.url()).pathname).toBe("/app/login");
    // Still pending: signing out is not acknowledging.
    expect((await api<{ items: Array<{ title: string }> }>("/api/v1/user/motd/pending", user.token)).items).toEqual([expect.objectContaining({ title })]);
  });

  it("shows a new system announcement in the modal at once, and cancels it only with a reason", async () => {
    const user = await signupUser(server);
    const title = `Firmware update ${tag()}`;
    const userPage = await pages.signIn("user", credentials(user));
    const adminPage = await pages.signIn("admin", ADMIN);
    await expect.poll(() => userPage.locator("[inert]").count()).toBe(0);

    const firmware = await announceTo([user], title, { message: "Mount firmware 2.1 is being rolled out.", severity: "critical" });
    // Pushed over the WebSocket: no reload on the user's side.
    const gate = userPage.getByRole("dialog", { name: GATE });
    await gate.getByRole("heading", { name: title }).waitFor(WAIT);
    await expect.poll(() => userPage.locator("[inert]").count()).toBe(1);

    // The admin was not a recipient; the list shows it once asked for active announcements.
    await adminPage.goto(app("announcements"));
    await adminPage.getByRole("group", { name: "Show system announcements" }).getByRole("button", { name: "Active", exact: true }).click();
    const active = row(adminPage, "System announcements", title);
    await active.getByRole("button", { name: `Cancel ${title}` }).click();
    const dialog = adminPage.getByRole("dialog", { name: "Cancel announcement" });
    const confirm = dialog.getByRole("button", { name: "Cancel announcement" });
    await expect.poll(() => confirm.isDisabled()).toBe(true);
    await dialog.getByLabel("Reason").fill("   ");
    await expect.poll(() => confirm.isDisabled()).toBe(true);
    await dialog.getByLabel("Reason").fill("Wrong firmware version announced");
    await expect.poll(() => confirm.isEnabled()).toBe(true);
    await confirm.click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await adminPage.getByText(`${title} was cancelled.`).first().waitFor(WAIT);
    await active.waitFor({ state: "detached", ...WAIT });

    // Cancelled, it no longer blocks the user.
    await gate.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => userPage.locator("[inert]").count()).toBe(0);
    // In its place, which one it was and the reason the admin gave, until the user dismisses it.
    const notices = userPage.getByRole("status", { name: "Cancelled announcements" });
    await notices.getByText("Reason: Wrong firmware version announced").waitFor(WAIT);
    await notices.getByText(title, { exact: true }).waitFor(WAIT);
    await notices.getByRole("button", { name: `Dismiss the notice that ${title} was cancelled` }).click();
    await notices.getByText(title, { exact: true }).waitFor({ state: "detached", ...WAIT });

    await adminPage.getByRole("group", { name: "Show system announcements" }).getByRole("button", { name: "Cancelled", exact: true }).click();
    const cancelled = row(adminPage, "System announcements", title);
    await cancelled.getByText("Cancelled", { exact: true }).waitFor(WAIT);
    await cancelled.getByRole("button", { name: `Cancel ${title}` }).waitFor({ state: "detached", ...WAIT });
    await cancelled.getByRole("button", { name: `Recipients of ${title}` }).click();
    const drawer = adminPage.getByRole("dialog", { name: `Recipients of ${title}` });
    await drawer.getByText("Reason: Wrong firmware version announced").waitFor(WAIT);
    await drawer.getByText(/^Cancelled by /).waitFor(WAIT);
    await adminPage.keyboard.press("Escape");
    await drawer.waitFor({ state: "hidden", ...WAIT });

    const list = await api<{ items: Array<{ id: string; status: string; cancellationReason: string | null }> }>(
      "/api/v1/system/motd?status=cancelled",
      adminToken,
    );
    expect(list.items.find((item) => item.id === firmware.id)).toMatchObject({ status: "cancelled", cancellationReason: "Wrong firmware version announced" });
  });

  it("lets an observatory's owner announce from its page, and marks the observatory in the list", async () => {
    const user = await signupUser(server);
    const name = `Dome Motd ${tag()}`;
    const observatory = await api<{ id: string }>("/observatories", user.token, { method: "POST", json: { name } });
    const userPage = await pages.signIn("user", credentials(user));
    await userPage.goto(app(`observatories/${observatory.id}`));
    await userPage.getByRole("heading", { name, level: 1 }).waitFor(WAIT);
    await userPage.getByRole("button", { name: "New announcement" }).click();
    const dialog = userPage.getByRole("dialog", { name: "New observatory announcement" });
    await dialog.getByLabel("Title").fill("Roof sensor fault");
    await dialog.getByLabel("Message").fill("The roof stays closed until the rain sensor is replaced.");
    // The server's schedule rule, at its field.
    await dialog.getByLabel("Expires").fill("2020-01-01T10:00");
    await dialog.getByRole("button", { name: "Send to 1 recipient" }).click();
    await dialog.getByText("Must lie in the future").waitFor(WAIT);
    await expect.poll(() => dialog.getByLabel("Expires").getAttribute("aria-invalid")).toBe("true");
    await dialog.getByLabel("Expires").fill("");
    await dialog.getByRole("button", { name: "Send to 1 recipient" }).click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await userPage.getByRole("tab", { name: "Announcements", selected: true }).waitFor(WAIT);
    await userPage.getByRole("list", { name: "Active observatory announcements" }).getByRole("article", { name: "Roof sensor fault" }).waitFor(WAIT);
    await row(userPage, "Observatory announcement history", "Roof sensor fault").waitFor(WAIT);

    await navLink(userPage, "Observatories").click();
    await userPage.getByRole("listitem", { name }).getByRole("img", { name: "Active announcements" }).waitFor(WAIT);
  });
});

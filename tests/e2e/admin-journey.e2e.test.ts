import { randomUUID } from "node:crypto";
import { filesCollection, observationsCollection } from "@meridian/db";
import { refreshAnalytics } from "@meridian/domain/analytics";
import { queuedFrameAnalysis } from "@meridian/rules/frames";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createAccount, loginSession, roomyLimits } from "../support/auth-suite";
import { fileDocument, observationDocument } from "../support/observation-documents";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

/**
 * What only a browser shows of the administration and account pages; what they show and call is in
 * their component tests (apps/web/src/pages/BackupsPage, JobsPage, ApiKeysPage, AnalyticsPage,
 * AnnouncementsPage, admin/, allocations/, announcements/). Navigation by the links, Escape on a native
 * dialog, filters that survive a reload, a phone's width, charts drawn, and announcements pushed live.
 */
const ADMIN = { email: "admin-journey-e2e@example.com", password: "admin journey e2e password" };
const PHONE = { width: 390, height: 844 };
const DAY_MS = 24 * 60 * 60 * 1000;
const suite = browserSuite({ ...roomyLimits, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
let adminToken: string | undefined;

const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);
/** Whether a control's box lies whole on a phone's screen. */
const onScreen = (box: { x: number; y: number; width: number; height: number } | null) =>
  box !== null && box.x >= 0 && box.x + box.width <= PHONE.width && box.y + box.height <= PHONE.height;

describe("web app: the administration and account pages in a browser", { timeout: 120_000 }, () => {
  it("goes from the administration to its pages by their links, closes a dialog on Escape, and keeps the Jobs filters over a reload", async () => {
    const page = await suite.pages.signInAt("admin", ADMIN, "admin");
    await page.getByRole("link", { name: /Backup management/ }).click();
    await page.getByRole("heading", { name: "Backup management", level: 1 }).waitFor(WAIT);
    await page.getByRole("button", { name: "Delete old backups" }).press("Enter");
    const cleanup = page.getByRole("dialog");
    await cleanup.getByLabel("Days to keep").waitFor(WAIT);
    await page.keyboard.press("Escape");
    await cleanup.waitFor({ state: "detached", ...WAIT });

    await page.goBack();
    await page.getByRole("link", { name: /^Jobs/ }).first().click();
    await page.getByRole("heading", { name: "Jobs", level: 1 }).waitFor(WAIT);
    await page.getByLabel("Status").selectOption("failed");
    await page.waitForURL(/status=failed/, WAIT);
    await page.reload();
    await page.getByRole("heading", { name: "Jobs", level: 1 }).waitFor(WAIT);
    expect(await page.getByLabel("Status").inputValue()).toBe("failed");
  });

  it("fits the API keys page to a phone (390×844): nothing runs off the screen, a long key name included", async () => {
    const account = await createAccount(suite.server());
    await suite.api("/api/v1/user/api-keys", account.token, {
      method: "POST",
      json: { name: "Old key with a rather long name for a phone", expiresAt: new Date(Date.now() + DAY_MS).toISOString() },
    });
    await suite.api("/api/v1/user/api-keys", account.token, { method: "POST", json: { name: "Lasting key" } });
    const page = await suite.pages.signInAt("phone", account, "api-keys", PHONE);
    await page.getByRole("list", { name: "API keys" }).getByText("Lasting key").waitFor(WAIT);
    const expires = page.getByLabel("Expires", { exact: true });
    await expires.selectOption("never");
    await page.getByText("Works until revoked", { exact: true }).waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    for (const control of [expires, page.getByRole("button", { name: "Create key" }), page.getByRole("button", { name: /^Revoke Old key/ })]) {
      const box = await control.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    }
  });

  it("fits the Users page to a phone: a user is a card, its dialogs on screen and closed by Escape, Show follows the arrow keys", async () => {
    const account = await createAccount(suite.server(), { name: "Kim Keyboard" });
    const page = await suite.pages.signInAt("phone-admin", ADMIN, "admin/users", PHONE);
    await page.getByLabel("Search users").fill(account.email);
    const rows = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: "@" });
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    const row = rows.filter({ hasText: account.email });
    await row.getByText("Active", { exact: true }).waitFor(WAIT);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    const box = await row.getByRole("button", { name: /^Make server admin/ }).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    await row.getByRole("button", { name: "Disable Kim Keyboard" }).press("Enter");
    const disable = page.getByRole("dialog", { name: "Disable account?" });
    await disable.waitFor(WAIT);
    await page.keyboard.press("Escape");
    await disable.waitFor({ state: "hidden", ...WAIT });
    await row.getByText("Active", { exact: true }).waitFor(WAIT);

    // The Edit dialog: its fields and its button on the screen; Escape (nothing typed) closes it, focus back on its opener.
    const edit = row.getByRole("button", { name: "Edit Kim Keyboard" });
    await edit.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Edit user" });
    await dialog.waitFor(WAIT);
    for (const control of [dialog.getByLabel("Name"), dialog.getByLabel("Email"), dialog.getByRole("button", { name: "Save changes" })])
      expect(onScreen(await control.boundingBox())).toBe(true);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => edit.evaluate((button) => button === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await dialog.waitFor(WAIT);
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("Kim Renamed");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "hidden", ...WAIT });
    await row.getByText("Kim Renamed").waitFor(WAIT);
    await row.getByRole("button", { name: "Disable Kim Renamed" }).click();
    await page.getByRole("dialog", { name: "Disable account?" }).getByRole("button", { name: "Disable account" }).click();
    await row.getByText("Disabled", { exact: true }).waitFor(WAIT);

    // Show, from the keyboard: two keys at once, the second moving on from the first's choice, not from the one before it.
    const show = page.getByRole("combobox", { name: "Show" });
    const showBox = await show.boundingBox();
    expect(showBox!.x).toBeGreaterThanOrEqual(0);
    expect(showBox!.x + showBox!.width).toBeLessThanOrEqual(PHONE.width);
    await page.getByLabel("Search users").fill("");
    await rows.filter({ hasText: ADMIN.email }).waitFor(WAIT);
    await page.getByLabel("Search users").focus();
    await page.keyboard.press("Tab");
    await expect.poll(() => show.evaluate((select) => select === document.activeElement)).toBe(true);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => show.inputValue()).toBe("disabled");
    await rows.filter({ hasText: ADMIN.email }).waitFor({ state: "detached", ...WAIT });
    expect((await rows.allInnerTexts()).every((text) => text.includes("Disabled"))).toBe(true);
    await row.waitFor(WAIT);
    expect(new URL(page.url()).searchParams.get("show")).toBe("disabled");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => show.inputValue()).toBe("all");
    await rows.filter({ hasText: ADMIN.email }).waitFor(WAIT);
    expect(new URL(page.url()).searchParams.has("show")).toBe(false);
  });

  it("reaches Analytics by its link and draws its charts, each name whole and apart on a phone, and Tab reaches a chart's values", async () => {
    const server = suite.server();
    const { db } = server.server.runtime.deps;
    const owner = await createAccount(server, { name: "Frame Counter" });
    for (const [name, fwhms] of [
      ["Observatorio del Roque de los Muchachos", [2.1, 2.6, 3.4]],
      ["Backyard", [4.2]],
    ] as const) {
      const observatory = await suite.api<{ id: string }>("/observatories", owner.token, { method: "POST", json: { name } });
      const project = await suite.api<{ id: string }>("/projects", owner.token, { method: "POST", json: { name } });
      const observation = await observationsCollection.insert(
        db,
        observationDocument({ projectId: project.id, observatoryId: observatory.id, ownerId: owner.id }, { status: "completed" }),
      );
      for (const [index, fwhmArcsec] of fwhms.entries()) {
        const frame = {
          ...queuedFrameAnalysis(),
          analysisId: randomUUID(),
          status: "analysed" as const,
          stars: 90,
          fwhmArcsec,
          analysedAt: new Date().toISOString(),
        };
        const graded = fwhmArcsec > 3 ? { grade: "rejected" as const, rejectedFor: ["FWHM_TOO_HIGH" as const] } : { grade: "accepted" as const };
        await filesCollection.insert(db, fileDocument(observation.id, observatory.id, `${index}.fits`, { kind: "image", frame: { ...frame, ...graded } }));
      }
    }
    // What the minute's refresh job does, now.
    await refreshAnalytics(server.server.runtime.deps);

    const page = await suite.pages.signInAt("analytics", ADMIN, "admin");
    await page
      .getByRole("link", { name: /Analytics/ })
      .first()
      .click();
    await page.getByRole("heading", { name: "Analytics", level: 1 }).waitFor(WAIT);
    for (const chart of [/^Observations by status/, /^Daily counts over the last 30 days/])
      await page.getByRole("figure", { name: chart }).locator("svg").first().waitFor(WAIT);

    await page.setViewportSize(PHONE);
    // A long name may wrap onto a second line (a tspan each): read it whole.
    const labelsOf = async (chart: string, count: number) => {
      const labels = page.getByRole("figure", { name: new RegExp(`^${chart}`) }).locator(".recharts-yAxis-tick-labels text");
      await expect.poll(() => labels.count(), WAIT).toBe(count);
      const names = await labels.evaluateAll((texts) =>
        texts.map((text) => Array.from(text.querySelectorAll("tspan"), (line) => line.textContent?.trim() ?? "").join(" ")),
      );
      const boxes = [];
      for (const label of await labels.all()) boxes.push((await label.boundingBox())!);
      return { names, boxes: boxes.sort((a, b) => a.y - b.y) };
    };
    const statuses = await labelsOf("Observations by status", 11);
    expect(statuses.names).toEqual(expect.arrayContaining(["Pending", "In progress", "Acquisition complete", "Partially completed", "Cancelled"]));
    for (const [index, box] of statuses.boxes.entries()) {
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      if (index > 0) expect(box.y).toBeGreaterThanOrEqual(statuses.boxes[index - 1]!.y + statuses.boxes[index - 1]!.height);
    }
    for (const chart of ["Frames analysed per observatory", "Accepted share per observatory", "Median FWHM per observatory"]) {
      const { names, boxes } = await labelsOf(chart, 2);
      expect(names.sort(), chart).toEqual(["Backyard", "Observatorio del Roque de los Muchachos"]);
      for (const box of boxes) expect(box.x >= 0 && box.x + box.width <= PHONE.width, chart).toBe(true);
    }
    const fwhmChart = page.getByRole("figure", { name: /^Median FWHM per observatory/ });
    expect(await fwhmChart.getAttribute("aria-label")).toBe("Median FWHM per observatory: Observatorio del Roque de los Muchachos 2.6″, Backyard 4.2″");
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);

    // Keyboard only: Tab reaches the FWHM chart, and the arrow keys show a bar's value.
    let reached = false;
    for (let presses = 0; presses < 80 && !reached; presses += 1) {
      await page.keyboard.press("Tab");
      reached = await fwhmChart.evaluate((figure) => figure.contains(document.activeElement));
    }
    expect(reached).toBe(true);
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => fwhmChart.locator(".recharts-tooltip-wrapper").textContent(), WAIT).toMatch(/Median FWHM/);
  });

  it("pushes an announcement to a user behind a modal Escape cannot close, and follows acknowledgments and a cancellation live", async () => {
    const reader = await createAccount(suite.server(), { name: "Blocked Reader" });
    adminToken ??= (await loginSession(suite.server(), ADMIN)).token;
    const announce = (title: string, severity = "warning") =>
      suite.api<{ id: string }>("/api/v1/system/motd", adminToken!, {
        method: "POST",
        json: { title, message: `About ${title}.`, severity, deliveryType: "message", targets: { users: { ids: [reader.id] } } },
      });
    const userPage = await suite.pages.signIn("reader", reader);
    const inert = userPage.locator("[inert]");
    await expect.poll(() => inert.count()).toBe(0);

    // Pushed over the WebSocket: no reload on the user's side.
    const titles = ["Dome repairs", "Network change"];
    for (const title of titles) await announce(title);
    const gate = userPage.getByRole("dialog", { name: /from the administrators$/ });
    const acknowledge = gate.getByRole("button", { name: /^Acknowledge / });
    await expect.poll(() => acknowledge.count(), WAIT).toBe(2);
    // The browser itself keeps it open: neither Escape nor the navigation gets past it; the app behind is inert.
    await userPage.keyboard.press("Escape");
    await userPage.keyboard.press("Escape");
    await expect.poll(() => gate.evaluate((dialog) => (dialog as HTMLDialogElement).open)).toBe(true);
    const observatories = userPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Observatories", exact: true });
    await expect.poll(() => observatories.evaluate((link) => link.closest("[inert]") !== null)).toBe(true);
    const link = (await observatories.boundingBox())!;
    await userPage.mouse.click(link.x + link.width / 2, link.y + link.height / 2);
    await expect.poll(() => new URL(userPage.url()).pathname).toMatch(/^\/app\/?$/);

    // The admin watches the recipients of the first while the user reads: recipients, acknowledged, pending, emailed, seen in the app.
    const adminPage = await suite.pages.signIn("announcer", ADMIN);
    await adminPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Announcements", exact: true }).click();
    await adminPage.getByRole("heading", { name: "Announcements", level: 1 }).waitFor(WAIT);
    const first = (await acknowledge.first().textContent())!.replace(/^Acknowledge\s*/, "").trim();
    await adminPage.getByRole("group", { name: "Show system announcements" }).getByRole("button", { name: "Active", exact: true }).click();
    await adminPage
      .getByRole("table", { name: "System announcements" })
      .getByRole("button", { name: `Recipients of ${first}` })
      .click();
    const drawer = adminPage.getByRole("dialog", { name: `Recipients of ${first}` });
    const counts = drawer.getByRole("definition");
    await expect.poll(() => counts.allInnerTexts(), WAIT).toEqual(["1", "0", "1", "0", "1"]);
    const readerRow = drawer.getByRole("table", { name: "Recipients" }).getByRole("row").filter({ hasText: reader.email });
    await readerRow.getByText("Pending", { exact: true }).waitFor(WAIT);

    // By keyboard: focus goes on to the other's button, then, with the modal closed, to the page's main content.
    const second = `Acknowledge ${titles.find((title) => title !== first)!}`;
    const focused = () =>
      userPage.evaluate(() => {
        const element = document.activeElement;
        if (!element || element === document.body) return "body";
        return element.id === "main" ? "main" : (element.textContent ?? "").trim();
      });
    await acknowledge.first().focus();
    await userPage.keyboard.press("Enter");
    await expect.poll(focused, WAIT).toBe(second);
    await userPage.keyboard.press("Enter");
    await gate.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => inert.count()).toBe(0);
    await expect.poll(focused).toBe("main");

    // The admin's drawer caught up without a reload.
    await expect.poll(() => counts.allInnerTexts(), WAIT).toEqual(["1", "1", "0", "0", "1"]);
    await readerRow.getByText("Pending", { exact: true }).waitFor({ state: "detached", ...WAIT });
    await drawer.getByLabel("Show").selectOption("pending");
    await drawer.getByRole("table", { name: "Recipients" }).getByRole("row").filter({ hasText: "Nobody is pending." }).waitFor(WAIT);
    await adminPage.keyboard.press("Escape");
    await drawer.waitFor({ state: "hidden", ...WAIT });

    // The app is the user's again: its links lead on, and the dashboard's banner says it was acknowledged.
    await observatories.click();
    await userPage.getByRole("heading", { name: "Observatories", level: 1 }).waitFor(WAIT);
    await userPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard", exact: true }).click();
    const banners = userPage.getByRole("region", { name: "Announcements" });
    await banners.getByRole("article", { name: first }).getByText("Acknowledged").waitFor(WAIT);

    // Cancelled while it shows, it leaves the user's screen at once, and a notice says which one and why, until dismissed.
    const firmware = await announce("Firmware update", "critical");
    await gate.getByRole("heading", { name: "Firmware update" }).waitFor(WAIT);
    await expect.poll(() => inert.count()).toBe(1);
    await suite.api(`/api/v1/system/motd/${firmware.id}`, adminToken, { method: "DELETE", json: { reason: "Wrong firmware version announced" } });
    await gate.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => inert.count()).toBe(0);
    const notices = userPage.getByRole("status", { name: "Cancelled announcements" });
    await notices.getByText("Reason: Wrong firmware version announced").waitFor(WAIT);
    await notices.getByText("Firmware update", { exact: true }).waitFor(WAIT);
    await notices.getByRole("button", { name: "Dismiss the notice that Firmware update was cancelled" }).click();
    await notices.getByText("Firmware update", { exact: true }).waitFor({ state: "detached", ...WAIT });
  });
});

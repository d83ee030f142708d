import { refreshAnalytics } from "@meridian/domain/analytics";
import { describe, expect, it } from "vitest";
import { signupUser } from "../support/test-server";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const ADMIN = { email: "analytics-e2e@example.com", password: "analytics e2e password" };
const suite = browserSuite({ MERIDIAN_ROLE: "all", ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });

describe("web app: analytics", { timeout: 120_000 }, () => {
  it("shows server admins the system's figures with charts, and an observatory owner their own", async () => {
    const server = suite.server();
    const owner = await signupUser(server, { name: "Stella Stats" });
    await server.request("/observatories", { method: "POST", token: owner.token, json: { name: "Counted dome" } });
    // What the minute's refresh job does, now: a cron run from before the observatory existed may have stored an older summary.
    await refreshAnalytics(server.server.runtime.deps);

    const admin = await suite.pages.signInAt("admin", ADMIN, "admin");
    await admin
      .getByRole("link", { name: /Analytics/ })
      .first()
      .click();
    await admin.getByRole("heading", { name: "Analytics", level: 1 }).waitFor(WAIT);
    const users = admin.locator("dl > div", { hasText: "Users" });
    await expect.poll(async () => Number((await users.locator("dd").first().textContent())?.replace(/\D/g, ""))).toBeGreaterThanOrEqual(2);
    // A figure whose name alone does not say what it counts says it under the number.
    expect(await admin.locator("dl > div", { hasText: "Active organizations" }).locator("dd").nth(1).textContent()).toBe("with an observatory or a project");
    await admin
      .getByRole("figure", { name: /Observations by status/ })
      .locator("svg")
      .first()
      .waitFor(WAIT);
    await admin
      .getByRole("figure", { name: /Daily counts over the last 30 days/ })
      .locator("svg")
      .first()
      .waitFor(WAIT);

    const page = await suite.pages.signInAt("owner", { email: owner.user.email, password: owner.password }, "statistics");
    await page.getByRole("heading", { name: "Statistics", level: 1 }).waitFor(WAIT);
    await expect.poll(() => page.locator("dl > div", { hasText: "Observatories" }).locator("dd").first().textContent()).toBe("1");
  });

  it("fits a phone (390×844): every status of the status chart is named in full, apart from the others, and nothing runs off the screen", async () => {
    const phone = { width: 390, height: 844 };
    const page = await suite.pages.signInAt("phone admin", ADMIN, "admin/analytics", phone);
    const figure = page.getByRole("figure", { name: /^Observations by status/ });
    const labels = figure.locator(".recharts-yAxis-tick-labels text");
    await expect.poll(() => labels.count(), WAIT).toBe(11);
    // A long name may wrap onto a second line (a tspan each): read it whole.
    const names = await labels.evaluateAll((texts) =>
      texts.map((text) => Array.from(text.querySelectorAll("tspan"), (line) => line.textContent?.trim() ?? "").join(" ")),
    );
    expect(names).toEqual(expect.arrayContaining(["Pending", "In progress", "Acquisition complete", "Partially completed", "Cancelled"]));
    const boxes = [];
    for (const label of await labels.all()) boxes.push((await label.boundingBox())!);
    boxes.sort((a, b) => a.y - b.y);
    for (const [index, box] of boxes.entries()) {
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(phone.width);
      if (index > 0) expect(box.y).toBeGreaterThanOrEqual(boxes[index - 1]!.y + boxes[index - 1]!.height);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(phone.width);
  });
});

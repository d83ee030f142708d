import { randomUUID } from "node:crypto";
import { filesCollection, observationsCollection } from "@meridian/db";
import { refreshAnalytics } from "@meridian/domain/analytics";
import { queuedFrameAnalysis } from "@meridian/rules/frames";
import { describe, expect, it } from "vitest";
import { fileDocument, observationDocument } from "../support/observation-documents";
import { signupUser } from "../support/test-server";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const ADMIN = { email: "analytics-frames-e2e@example.com", password: "analytics frames e2e password" };
const suite = browserSuite({ MERIDIAN_ROLE: "server", ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
const PHONE = { width: 390, height: 844 };

describe("web app: the frames charts of the Analytics page", { timeout: 120_000 }, () => {
  it("fit a phone with every observatory's name whole, and a keyboard reaches each chart's values", async () => {
    const server = suite.server();
    const { db } = server.server.runtime.deps;
    const owner = await signupUser(server, { name: "Frame Counter" });
    for (const [name, fwhms] of [
      ["Observatorio del Roque de los Muchachos", [2.1, 2.6, 3.4]],
      ["Backyard", [4.2]],
    ] as const) {
      const observatoryId = ((await (await server.request("/observatories", { method: "POST", token: owner.token, json: { name } })).json()) as { id: string })
        .id;
      const projectId = ((await (await server.request("/projects", { method: "POST", token: owner.token, json: { name } })).json()) as { id: string }).id;
      const observation = await observationsCollection.insert(
        db,
        observationDocument({ projectId, observatoryId, ownerId: owner.user.id }, { status: "completed" }),
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
        await filesCollection.insert(db, fileDocument(observation.id, observatoryId, `${index}.fits`, { kind: "image", frame: { ...frame, ...graded } }));
      }
    }
    await refreshAnalytics(server.server.runtime.deps);

    const page = await suite.pages.signInAt("phone admin", ADMIN, "admin/analytics", PHONE);
    const charts = ["Frames analysed per observatory", "Accepted share per observatory", "Median FWHM per observatory"];
    for (const chart of charts) {
      const figure = page.getByRole("figure", { name: new RegExp(`^${chart}`) });
      const labels = figure.locator(".recharts-yAxis-tick-labels text");
      await expect.poll(() => labels.count(), WAIT).toBe(2);
      const names = await labels.evaluateAll((texts) =>
        texts.map((text) => Array.from(text.querySelectorAll("tspan"), (line) => line.textContent?.trim() ?? "").join(" ")),
      );
      expect(names.sort(), chart).toEqual(["Backyard", "Observatorio del Roque de los Muchachos"]);
      for (const label of await labels.all()) {
        const box = (await label.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      }
    }
    expect(await page.getByRole("figure", { name: /^Median FWHM per observatory/ }).getAttribute("aria-label")).toBe(
      "Median FWHM per observatory: Observatorio del Roque de los Muchachos 2.6″, Backyard 4.2″",
    );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    // Keyboard only: Tab reaches the FWHM chart, and the arrow keys show a bar's value.
    const fwhmChart = page.getByRole("figure", { name: /^Median FWHM per observatory/ });
    let reached = false;
    for (let presses = 0; presses < 80 && !reached; presses += 1) {
      await page.keyboard.press("Tab");
      reached = await fwhmChart.evaluate((figure) => figure.contains(document.activeElement));
    }
    expect(reached).toBe(true);
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => fwhmChart.locator(".recharts-tooltip-wrapper").textContent(), WAIT).toMatch(/Median FWHM/);
  });
});

// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { observationStatuses } from "@meridian/rules";
import { describe, expect, it } from "vitest";
import type { Analytics } from "../analytics/AnalyticsDashboard";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { MyAnalyticsPage, SystemAnalyticsPage } from "./AnalyticsPage";

const figures = (fields: Partial<Analytics>): Analytics => ({
  scope: "system",
  observatoryCount: 2,
  observationCount: 5,
  userCount: 3,
  organizationCount: 1,
  successRate: 0.5,
  storageBytes: 0,
  observationsByStatus: {
    ...Object.fromEntries(observationStatuses.map((status) => [status, 0])),
    pending: 3,
    completed: 1,
    failed: 1,
  } as Analytics["observationsByStatus"],
  daily: Array.from({ length: 30 }, (_, day) => ({ date: `2026-11-${String(day + 1).padStart(2, "0")}`, created: day % 3, completed: 0, failed: 0 })),
  hoursByObservatory: [],
  hoursByProject: [],
  framesAnalysed: 0,
  framesFailed: 0,
  framesAcceptedShare: null,
  framesByObservatory: [],
  computedAt: "2026-11-29T18:00:00.000Z",
  ...fields,
});

/** A figure's number and what it counts under it, by its name (the `dl` of the dashboard's cards). */
const card = (name: string) => {
  const term = screen.getAllByRole("term").find((one) => one.textContent === name)!;
  return [...term.parentElement!.querySelectorAll("dd")].map((dd) => dd.textContent);
};

describe("the Analytics and Statistics pages", () => {
  it("show a server admin the system's figures, each saying what it counts, and the status and daily charts by their names", async () => {
    await startApi({ "auth.me": () => signedIn({ roles: ["serverAdmin"] }), "analytics.system": () => figures({ userCount: 1234 }) });
    renderInApp(<SystemAnalyticsPage />, "/admin/analytics");
    await screen.findByRole("heading", { name: "Analytics", level: 1 });
    await waitFor(() => expect(card("Users")).toEqual(["1,234", "accounts"]));
    // A figure whose name alone does not say what it counts says it under the number.
    expect(card("Active organizations")).toEqual(["1", "with an observatory or a project"]);
    const byStatus = screen.getByRole("figure", { name: /^Observations by status/ });
    expect(byStatus.getAttribute("aria-label")).toContain("Pending 3");
    expect(byStatus.getAttribute("aria-label")).toContain("Completed 1");
    screen.getByRole("figure", { name: "Daily counts over the last 30 days" });
    expect(document.title).toBe("Analytics · Meridian");
  });

  it("show an observatory's owner the figures of their own observatories, or say there is none to count yet", async () => {
    let mine = figures({ scope: "observatories", observatoryCount: 1, userCount: 1 });
    const api = await startApi({ "auth.me": () => signedIn(), "analytics.mine": () => mine });
    const { unmount } = renderInApp(<MyAnalyticsPage />, "/statistics");
    await screen.findByRole("heading", { name: "Statistics", level: 1 });
    await waitFor(() => expect(card("Observatories")[0]).toBe("1"));
    expect(card("Observers")).toEqual(["1", "owners of their observations"]);
    expect(api.called()).not.toContain("analytics.system");

    unmount();
    mine = figures({ scope: "observatories", observatoryCount: 0 });
    renderInApp(<MyAnalyticsPage />, "/statistics");
    const empty = await screen.findByRole("heading", { name: "No observatory of yours to count yet" });
    within(empty.parentElement!.parentElement!).getByRole("link", { name: "Go to observatories" });
  });
});

// @vitest-environment happy-dom
import { defaultServerSettings } from "@meridian/rules/settings";
import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { startApi, StubRefusal } from "../test-support/api";
import { descriptionOf, renderInApp } from "../test-support/render";
import { ServerSettingsPage } from "./ServerSettingsPage";

const FIVE_FIELDS = "The backup schedule must be a cron expression of five fields: minute hour day month weekday (UTC).";

describe("the Server settings page", () => {
  it("checks each setting in the API's words as one types, saves what changed, and puts the API's refusal beside its field", async () => {
    // The API answers the same sentences: tests/integration/observations-api.test.ts ("server settings").
    let refuseStale = false;
    let settings = defaultServerSettings;
    const api = await startApi({
      "admin.settings": () => settings,
      "admin.updateSettings": ({ update }) => {
        if (refuseStale) {
          throw new StubRefusal("VALIDATION_FAILED", 400, "Stale assigned hours must be at least 1.", [
            { path: "update.staleAssignedHours", message: "Stale assigned hours must be at least 1." },
          ]);
        }
        settings = { ...settings, ...update, scanSchedule: { ...settings.scanSchedule, ...update.scanSchedule } };
        return settings;
      },
    });
    const { user } = renderInApp(<ServerSettingsPage />, "/admin/settings#backups");
    screen.getByRole("heading", { name: "Server settings", level: 1 });
    const schedule = await screen.findByLabelText("Backup schedule");

    await user.type(schedule, "every night");
    await screen.findByText(FIVE_FIELDS);
    expect(schedule.getAttribute("aria-invalid")).toBe("true");
    expect(descriptionOf(schedule)).toBe(FIVE_FIELDS);
    await user.clear(schedule);
    await user.type(schedule, "61 2 * * *");
    await screen.findByText("The backup schedule must be a valid cron expression: minute 0–59, hour 0–23, day 1–31, month 1–12, weekday 0–7 (UTC).");

    await user.clear(schedule);
    await user.type(schedule, "30 2 * * *");
    await screen.findByText(/^At 02:30 \(UTC\)\. Next: .+ \(your time\)\.$/);
    const keepDays = screen.getByLabelText("Keep backups for (days)");
    await user.clear(keepDays);
    await user.type(keepDays, "0");
    await screen.findByText("Backup keep days must be at least 1.");
    await user.clear(keepDays);
    await user.type(keepDays, "14");
    // Enter in a field submits the form by the browser's implicit submission: the first-use journey (tests/e2e) presses it.
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    await screen.findByText("Settings saved.");
    expect(api.calls("admin.updateSettings")).toEqual([{ update: { backupSchedule: "30 2 * * *", backupKeepDays: 14 } }]);

    // Should the API refuse what the page let through, its message stands beside the field it names.
    refuseStale = true;
    await user.type(screen.getByLabelText("Minimum plugin version"), "3.8.0.0");
    await user.click(screen.getByRole("button", { name: "Save settings" }));
    const stale = screen.getByLabelText("Stale assigned after (hours)");
    await expect.poll(() => stale.getAttribute("aria-invalid")).toBe("true");
    expect(descriptionOf(stale)).toBe("Stale assigned hours must be at least 1.");
  });
});

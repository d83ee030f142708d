// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { startApi, type Answer } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { BackupsPage } from "./BackupsPage";

const TAKEN = "2026-11-29T10:15:00.000Z";
const backup = { id: "bk-1", createdAt: TAKEN, trigger: "manual", sizeBytes: 48_213, status: "verified", error: null } as const;
const done = (id: string, result: unknown): Answer<"admin.job"> => ({
  id,
  kind: "backup_create",
  status: "completed",
  progress: { stage: "done", done: 1, total: 1 },
  result,
  error: null,
});

describe("the Backup management page", () => {
  it("creates a backup with progress, restores it behind its typed date, and previews old ones before deleting any", async () => {
    const api = await startApi({
      "admin.settings": () => ({ backupSchedule: null, backupKeepDays: 30, backupKeepMin: 3 }),
      "backups.list": () => ({ items: [backup] }),
      "backups.create": () => ({ ...backup, status: "running", sizeBytes: null, jobId: "job-create" }),
      "backups.restore": () => ({ jobId: "job-restore" }),
      "backups.cleanup": () => ({ deleted: [] }),
      "admin.job": ({ id }) => (id === "job-create" ? done(id, { status: "verified", sizeBytes: 48_213 }) : done(id, { scanId: "scan-1" })),
    });
    const { user } = renderInApp(<BackupsPage />);
    screen.getByRole("heading", { name: "Backup management", level: 1 });
    screen.getByText(/not the image files themselves/);

    await user.click(screen.getByRole("button", { name: "Create backup" }));
    await screen.findByText(/^Backup of .+ verified: .+B\.$/);
    const table = await screen.findByRole("table", { name: "Backups" });
    within(table).getByText("verified");

    await user.click(within(table).getAllByRole("button", { name: /^Restore the backup of/ })[0]!);
    const dialog = screen.getByRole("dialog");
    const restore = within(dialog).getByRole("button", { name: "Restore" });
    expect(restore.hasAttribute("disabled")).toBe(true);
    await user.type(within(dialog).getByLabelText(/Type the backup's date/), "2026-11-29");
    await user.click(restore);
    await screen.findByText(/^The backup of .+ is restored\. A quick integrity scan/);
    expect(api.calls("backups.restore")).toEqual([{ id: "bk-1" }]);

    await user.click(screen.getByRole("button", { name: "Delete old backups" }));
    const cleanup = screen.getByRole("dialog");
    await user.clear(within(cleanup).getByLabelText("Days to keep"));
    await user.type(within(cleanup).getByLabelText("Days to keep"), "0");
    await user.clear(within(cleanup).getByLabelText("Keep at least"));
    await user.type(within(cleanup).getByLabelText("Keep at least"), "0");
    await user.click(within(cleanup).getByRole("button", { name: "Preview" }));
    // The only backup is the newest verified one, which always stays.
    await within(cleanup).findByText("Nothing is that old: no backup would be deleted.");
    // Closing it (Escape on the dialog is the browser's: tests/e2e keeps that) deletes nothing.
    await user.click(within(cleanup).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    // Only the dry run was asked for: nothing was deleted.
    expect(api.calls("backups.cleanup")).toEqual([{ keepDays: 0, keepMin: 0, dryRun: true }]);
  });
});

// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes, useLocation } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { MaintenanceBanner } from "../layout/MaintenanceBanner";
import { startApi, type Answer } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { JobsPage } from "./JobsPage";

/** Where the page's router is, for the test to read. */
function Where() {
  const location = useLocation();
  return <output data-testid="where">{`${location.pathname}${location.search}`}</output>;
}

const ADMIN = { id: "u-1", name: "Ada Admin", email: "ada@example.com", roles: ["serverAdmin"] };
const restore: Answer<"admin.job"> = {
  id: "job-restore",
  kind: "backup_restore",
  status: "running",
  progress: { stage: "load", done: 3, total: 12 },
  subjectId: "bk-1",
  result: null,
  error: null,
  startedAt: "2026-11-29T10:00:00.000Z",
  finishedAt: null,
  startedByName: "Ada Admin",
};

function renderApp(path: string) {
  return renderInApp(
    <>
      <MaintenanceBanner />
      <Routes>
        <Route path="/" element={<p>Dashboard</p>} />
        <Route path="/admin/jobs" element={<JobsPage />} />
      </Routes>
      <Where />
    </>,
    path,
  );
}

describe("the Jobs page", () => {
  it("ends a restore that will not finish from the maintenance banner's link, by keyboard, and the banner goes", async () => {
    let job: Answer<"admin.job"> = restore;
    const api = await startApi({
      "auth.me": () => ADMIN,
      "maintenance.status": () =>
        job.status === "running" ? { active: true, reason: "Restoring a backup", since: job.startedAt, jobId: job.id } : { active: false },
      "admin.jobs": () => ({ items: [job], nextCursor: null }),
      "admin.cancelJob": ({ id }) => {
        job = { ...job, status: "failed", finishedAt: "2026-11-29T10:05:00.000Z", error: "Cancelled by Ada Admin (ada@example.com)" };
        return { ...job, id };
      },
    });
    const { user } = renderApp("/");
    const banner = await screen.findByText("Maintenance:");
    await user.click(within(banner.closest<HTMLElement>('[role="status"]')!).getByRole("link", { name: "end it on the Jobs page" }));
    await screen.findByRole("heading", { name: "Jobs", level: 1 });
    expect((screen.getByLabelText("Kind") as HTMLSelectElement).value).toBe("backup_restore");
    await waitFor(() => expect(api.calls("admin.jobs")[0]).toMatchObject({ kind: "backup_restore" }));
    const table = await screen.findByRole("table", { name: "Jobs" });
    within(table).getByText(restore.id!);
    within(table).getByRole("progressbar", { name: `Progress of Restore ${restore.id}` });

    // Keyboard only: the row's Cancel, then the dialog's confirmation.
    within(table)
      .getByRole("button", { name: `Cancel Restore ${restore.id}` })
      .focus();
    await user.keyboard("{Enter}");
    const dialog = await screen.findByRole("dialog");
    within(dialog).getByRole("heading", { name: "Cancel this restore?" });
    within(dialog).getByRole("button", { name: "Keep it" });
    within(dialog).getByRole("button", { name: "Cancel the job" }).focus();
    await user.keyboard("{Enter}");
    await screen.findAllByText(`Restore ${restore.id} was cancelled, and what it held was released.`);
    expect(api.calls("admin.cancelJob")).toEqual([{ id: restore.id }]);
    await within(table).findByText(/^Cancelled by .+\(ada@example\.com\)$/);
    await waitFor(() => expect(screen.queryByText("Maintenance:")).toBeNull());
    expect(within(table).queryByRole("button", { name: /^Cancel / })).toBeNull();
  });

  it("keeps its filters in the URL, so a reload shows the same list", async () => {
    const failed: Answer<"admin.job"> = { ...restore, status: "failed", error: "Cancelled by Ada Admin (ada@example.com)" };
    const api = await startApi({
      "auth.me": () => ADMIN,
      "maintenance.status": () => ({ active: false }),
      "admin.jobs": () => ({ items: [failed], nextCursor: null }),
    });
    const { user } = renderApp("/admin/jobs?kind=backup_restore");
    await screen.findByRole("table", { name: "Jobs" });
    await user.selectOptions(screen.getByLabelText("Status"), "failed");
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/admin/jobs?kind=backup_restore&status=failed"));
    await waitFor(() => expect(api.calls("admin.jobs").at(-1)).toMatchObject({ kind: "backup_restore", status: "failed" }));
    within(await screen.findByRole("table", { name: "Jobs" })).getByText(restore.id!);
  });

  it("reads its filters from the URL it is opened at", async () => {
    const api = await startApi({
      "auth.me": () => ADMIN,
      "maintenance.status": () => ({ active: false }),
      "admin.jobs": () => ({ items: [], nextCursor: null }),
    });
    renderApp("/admin/jobs?status=failed");
    await screen.findByText("No job matches these filters");
    expect((screen.getByLabelText("Status") as HTMLSelectElement).value).toBe("failed");
    expect(api.calls("admin.jobs")[0]).toMatchObject({ status: "failed" });
  });
});

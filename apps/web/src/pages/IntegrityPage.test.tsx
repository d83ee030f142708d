// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { startApi, type Answer } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { IntegrityPage } from "./IntegrityPage";

const STUCK = ["obs-1", "obs-2", "obs-3"];
const scan: Answer<"integrity.scan"> = {
  id: "scan-1",
  kind: "full",
  trigger: "manual",
  status: "completed",
  startedAt: "2026-11-29T10:00:00.000Z",
  finishedAt: "2026-11-29T10:01:00.000Z",
  error: null,
  progress: { scanned: 3, total: 3, collection: null },
  summary: { critical: 0, warning: 3, info: 0 },
};
type Issue = NonNullable<Answer<"integrity.issues">["items"]>[number];
const issue = (documentId: string): Issue => ({
  id: `iss-${documentId}`,
  severity: "warning",
  type: "status",
  collection: "observations",
  documentId,
  code: "STUCK_ASSIGNED",
  message: "Assigned for 72 hours without starting",
  autoFixable: true,
  status: "open",
  fix: { description: "Back to the queue", changes: [{ field: "status", from: "assigned", to: "pending" }] },
});

describe("the Database integrity page", () => {
  it("runs a full scan of the chosen collections, counts issues per value, repairs one after showing its diff, the rest in bulk", async () => {
    let issues = STUCK.map(issue);
    const repairedAt = "2026-11-29T10:02:00.000Z";
    const repaired = (item: Issue): Issue => ({ ...item, status: "repaired", repair: { at: repairedAt, verified: true } });
    const api = await startApi({
      "integrity.collections": () => ({
        items: [
          { name: "observations", estimatedDocuments: 3, exact: true },
          { name: "projects", estimatedDocuments: 1, exact: true },
        ],
      }),
      "integrity.scans": () => ({ items: [scan], nextCursor: null }),
      "integrity.startScan": () => scan,
      "integrity.scan": () => scan,
      "integrity.issues": (input) => {
        const open = issues.filter((item) => item.status === "open");
        const shown = input.severity && input.severity !== "warning" ? [] : issues;
        return {
          items: shown,
          nextCursor: null,
          counts: { severity: { warning: issues.length }, type: { status: issues.length }, collection: { observations: issues.length }, autoFixable: {} },
          openAutoFixable: open.length,
        };
      },
      "integrity.repairIssue": ({ issueId }) => {
        issues = issues.map((item) => (item.id === issueId ? repaired(item) : item));
        return issues.find((item) => item.id === issueId)!;
      },
      "integrity.bulkRepair": () => {
        issues = issues.map(repaired);
        return { jobId: "job-repair" };
      },
      "admin.job": ({ id }) => ({ id, kind: "integrity_repair", status: "completed", progress: { done: 2, total: 2 }, result: { repaired: 2, skipped: 0 } }),
      "admin.settings": () => ({ scanSchedule: { quick: null, full: null } }),
    });
    const { user } = renderInApp(
      <Routes>
        <Route path="/admin/integrity" element={<IntegrityPage />} />
      </Routes>,
      "/admin/integrity",
    );
    screen.getByRole("heading", { name: "Database integrity", level: 1 });

    // Full scan of the observations only.
    await user.click(screen.getByLabelText(/^Full:/));
    await user.click(await screen.findByLabelText(/^projects \(/));
    await user.click(screen.getByRole("button", { name: "Start full scan" }));
    await waitFor(() => expect(api.calls("integrity.startScan")).toEqual([expect.objectContaining({ kind: "full", collections: ["observations"] })]));
    const table = await screen.findByRole("table", { name: "Issues" });
    expect(within(table).getAllByText("STUCK_ASSIGNED")).toHaveLength(3);
    // Counts per value in the filters.
    await within(screen.getByLabelText("Severity")).findByRole("option", { name: "warning (3)" });
    await user.selectOptions(screen.getByLabelText("Severity"), "critical");
    await screen.findByText("No issue matches these filters");
    expect(api.calls("integrity.issues").at(-1)).toMatchObject({ id: scan.id, severity: "critical" });
    await user.selectOptions(screen.getByLabelText("Severity"), "");

    // One issue: its fix as a diff, then repaired.
    await user.click(await screen.findByRole("button", { name: `Details of STUCK_ASSIGNED on ${STUCK[0]}` }));
    const drawer = screen.getByRole("dialog", { name: "STUCK_ASSIGNED" });
    const diff = within(drawer).getByLabelText("The change as a diff");
    expect(diff.textContent).toContain("- status: assigned");
    expect(diff.textContent).toContain("+ status: pending");
    // By keyboard: the Repair button is gone once it succeeded, and focus never drops to the page's
    // body: it stays in the drawer, on its way back (Close).
    within(drawer).getByRole("button", { name: "Repair this issue" }).focus();
    await user.keyboard("{Enter}");
    await within(drawer).findByText(/the check no longer finds it/);
    expect(within(drawer).queryByRole("button", { name: "Repair this issue" })).toBeNull();
    expect(api.calls("integrity.repairIssue")).toEqual([{ issueId: `iss-${STUCK[0]}` }]);
    await waitFor(() => expect(document.activeElement).toBe(within(drawer).getByRole("button", { name: "Close" })));
    await user.keyboard("{Enter}");
    // Closed, focus goes back to the row's button that opened it.
    await waitFor(() => expect(document.activeElement?.getAttribute("aria-label")).toBe(`Details of STUCK_ASSIGNED on ${STUCK[0]}`));

    // The rest in bulk, behind a confirmation naming how many change.
    await user.click(await screen.findByRole("button", { name: "Repair 2 auto-fixable issues" }));
    const confirm = screen.getByRole("dialog", { name: "Repair 2 issues?" });
    within(confirm).getByText(/Up to 2 documents/);
    await user.click(within(confirm).getByRole("button", { name: "Repair 2" }));
    await screen.findByText("Repaired 2 issues.");
    expect(api.calls("integrity.bulkRepair")).toEqual([{ id: scan.id }]);

    // Export follows the filters, a link the session cookie authorises; the scan is in the history, finished.
    expect(screen.getByRole("link", { name: "Export CSV" }).getAttribute("href")).toBe(`/api/v1/admin/integrity/scans/${scan.id}/issues/export?format=csv`);
    within(screen.getByRole("table", { name: "Scans" })).getByText("completed");
  });
});

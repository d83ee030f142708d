// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes, useLocation } from "react-router-dom";
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

/** Where the page's router is, for the test to read. */
function Where() {
  const location = useLocation();
  return <output data-testid="where">{`${location.pathname}${location.search}`}</output>;
}

const where = () => new URL(screen.getByTestId("where").textContent!, "http://app.test");

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

  it("keeps the scan and its filters in the URL, leads from a lost file to its observation, and disables a repair of nothing", async () => {
    // The server's order (critical first) and a lost file's next step: tests/integration/integrity-scans.test.ts and integrity-repair.test.ts;
    // the observation's missing and lost files: observations/ObservationFiles.test.tsx.
    const full: Answer<"integrity.scan"> = { ...scan, id: "scan-full", summary: { critical: 1, warning: 1, info: 0 } };
    const cli: Answer<"integrity.scan"> = { ...scan, id: "scan-cli", trigger: "cli", summary: { critical: 1, warning: 0, info: 0 } };
    const lost: Issue = {
      ...issue("file-1"),
      id: "iss-lost",
      severity: "critical",
      type: "file",
      collection: "files",
      code: "FILE_MISSING",
      message: "m31-0001.fits is gone from storage",
      autoFixable: false,
      fix: null,
      observationId: "obs-lost",
      nextStep: "If m31-0001.fits is lost, ask the observatory's operators to upload it again to its observation.",
    };
    const stuck = issue("obs-1");
    const api = await startApi({
      "integrity.collections": () => ({ items: [{ name: "files", estimatedDocuments: 2, exact: true }] }),
      "integrity.scans": () => ({ items: [cli, full], nextCursor: null }),
      "integrity.scan": ({ id }) => (id === cli.id ? cli : full),
      "integrity.issues": (input) => {
        const all = input.id === cli.id ? [lost] : [lost, stuck];
        const items = all.filter((item) => !input.severity || item.severity === input.severity);
        const fixable = items.filter((item) => item.autoFixable).length;
        return { items, nextCursor: null, counts: { severity: {}, type: {}, collection: {}, autoFixable: {} }, openAutoFixable: fixable };
      },
      "admin.settings": () => ({ scanSchedule: { quick: null, full: null } }),
    });
    const page = (
      <>
        <Routes>
          <Route path="/admin/integrity" element={<IntegrityPage />} />
          <Route path="/observations/:id" element={<h1>The observation</h1>} />
        </Routes>
        <Where />
      </>
    );
    const { user, unmount } = renderInApp(page, `/admin/integrity?scan=${full.id}`);
    await within(await screen.findByRole("table", { name: "Issues" })).findByText("STUCK_ASSIGNED");

    // A filter goes into the URL; the same URL opened afresh (a reload) shows the same scan, filtered the same way.
    await user.selectOptions(screen.getByLabelText("Severity"), "warning");
    await waitFor(() => expect(where().searchParams.get("severity")).toBe("warning"));
    expect(where().searchParams.get("scan")).toBe(full.id);
    const address = screen.getByTestId("where").textContent!;
    unmount();
    const again = renderInApp(page, address);
    await waitFor(() => expect((screen.getByLabelText("Severity") as HTMLSelectElement).value).toBe("warning"));
    expect(api.calls("integrity.issues").at(-1)).toMatchObject({ id: full.id, severity: "warning" });
    await waitFor(() => expect(within(screen.getByRole("table", { name: "Issues" })).queryByText("FILE_MISSING")).toBeNull());

    // A lost file: what to do, and a link to its observation.
    await again.user.selectOptions(screen.getByLabelText("Severity"), "critical");
    await again.user.click(await screen.findByRole("button", { name: "Details of FILE_MISSING on file-1" }));
    const drawer = screen.getByRole("dialog", { name: "FILE_MISSING" });
    within(drawer).getByRole("heading", { name: "What to do" });
    within(drawer).getByText(/ask the observatory's operators to upload it again/);
    await again.user.click(within(drawer).getByRole("link", { name: "Open the observation" }));
    await screen.findByRole("heading", { name: "The observation", level: 1 });
    expect(where().pathname).toBe("/observations/obs-lost");
    again.unmount();

    // Without a scan in the URL, the newest one is shown and named in the URL; nothing in it is auto-fixable, and it came from the command line.
    renderInApp(page, "/admin/integrity");
    await waitFor(() => expect(where().searchParams.get("scan")).toBe(cli.id));
    await within(await screen.findByRole("table", { name: "Issues" })).findByText("FILE_MISSING");
    const repairNothing = await screen.findByRole("button", { name: "No auto-fixable issues to repair" });
    expect(repairNothing.hasAttribute("disabled")).toBe(true);
    const current = screen.getByRole("table", { name: "Scans" }).querySelector<HTMLElement>('tr[aria-current="true"]')!;
    within(current).getByText("from the command line");
  });
});

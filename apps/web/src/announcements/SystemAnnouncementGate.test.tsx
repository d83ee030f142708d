// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { startApi, StubRefusal } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { announcementFixture } from "./announcement-fixture";
import { SystemAnnouncementGate } from "./SystemAnnouncementGate";
import type { Announcement } from "./types";
import { useBlockingAnnouncements } from "./useBlockingAnnouncements";

const GATE = "Announcement from the administrators";

const pending = (id: string, title: string) => announcementFixture(id, title, { acknowledgedAt: null });

/** The app as AppLayout puts it together: the page's main content, and the gate over it while announcements are pending. */
function App() {
  const blocking = useBlockingAnnouncements();
  return (
    <>
      <main id="main" tabIndex={-1} inert={blocking.length > 0}>
        <h1>Dashboard</h1>
      </main>
      <SystemAnnouncementGate announcements={blocking} />
    </>
  );
}

const app = (
  <Routes>
    <Route path="/" element={<App />} />
    <Route path="/login" element={<h1>Sign in</h1>} />
  </Routes>
);

/** The stub server's pending announcements, less those acknowledged. */
async function pendingApi(announcements: Announcement[]) {
  const acknowledged = new Set<string>();
  return startApi({
    "auth.me": () => signedIn({ id: "usr_reader" }),
    "announcements.pending": () => ({ items: announcements.filter((one) => !acknowledged.has(one.id)) }),
    "announcements.markSeen": ({ ids }) => ({ seen: ids.length }),
    "announcements.acknowledge": ({ id }) => {
      acknowledged.add(id);
      return { acknowledgedAt: "2026-11-20T11:00:00.000Z" };
    },
    "auth.logout": () => ({ ok: true }),
  });
}

describe("the modal of pending system announcements", () => {
  it("shows the announcement with no way out but acknowledging or signing out, and signing out acknowledges nothing", async () => {
    const api = await pendingApi([pending("ann_1", "Archive offline")]);
    const { user } = renderInApp(app, { path: "/", where: true });
    const gate = await screen.findByRole("dialog", { name: GATE });
    within(gate).getByRole("heading", { name: "Archive offline" });
    within(gate).getByText("About Archive offline.");
    // The browser itself keeps it open: no Escape or close request can shut it (closedby="none").
    expect(gate.getAttribute("closedby")).toBe("none");
    expect(screen.getByRole("main", { hidden: true }).hasAttribute("inert")).toBe(true);
    await waitFor(() => expect(api.calls("announcements.markSeen")).toEqual([{ ids: ["ann_1"] }]));

    await user.click(within(gate).getByRole("button", { name: "Sign out" }));
    await screen.findByRole("heading", { name: "Sign in" });
    expect(screen.getByTestId("where").textContent).toBe("/login");
    expect(api.called()).toContain("auth.logout");
    expect(api.calls("announcements.acknowledge")).toEqual([]);
  });

  it("reports the announcement as seen again when the first report is lost on the way", async () => {
    let reports = 0;
    const api = await startApi({
      "auth.me": () => signedIn({ id: "usr_lost_report" }),
      "announcements.pending": () => ({ items: [pending("ann_lost", "Dome closed")] }),
      "announcements.markSeen": ({ ids }) => {
        reports += 1;
        if (reports === 1) throw new StubRefusal("INTERNAL_SERVER_ERROR", 500, "The server restarted");
        return { seen: ids.length };
      },
    });
    renderInApp(app, "/");
    await screen.findByRole("dialog", { name: GATE });
    await waitFor(() => expect(api.calls("announcements.markSeen")).toEqual([{ ids: ["ann_lost"] }, { ids: ["ann_lost"] }]));
  });

  it("moves keyboard focus to the next announcement's button as one is acknowledged, and to the main content after the last", async () => {
    const titles = ["Dome repairs", "Network change"];
    const api = await pendingApi(titles.map((title, index) => pending(`ann_${index}`, title)));
    const { user } = renderInApp(app, "/");
    const gate = await screen.findByRole("dialog", { name: "2 announcements from the administrators" });
    const acknowledge = () => within(gate).queryAllByRole("button", { name: /^Acknowledge / });
    expect(acknowledge()).toHaveLength(2);

    acknowledge()[0]!.focus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(acknowledge()).toHaveLength(1));
    await waitFor(() => expect(document.activeElement).toBe(within(gate).getByRole("button", { name: "Acknowledge Network change" })));

    await user.keyboard("{Enter}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole("main")));
    expect(screen.getByRole("main").hasAttribute("inert")).toBe(false);
    expect(api.calls("announcements.acknowledge")).toEqual([
      { ref: { scope: "system" }, id: "ann_0" },
      { ref: { scope: "system" }, id: "ann_1" },
    ]);
  });
});

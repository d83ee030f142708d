// @vitest-environment happy-dom
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { GettingStarted } from "./GettingStarted";

let api: Awaited<ReturnType<typeof startApi>> | undefined;
afterEach(() => localStorage.clear());

const STEPS = ["join", "location", "plugin", "project", "observation"] as const;
/** The checklist as `user.gettingStarted` answers it: the steps in `done` ticked, `observatory` the one it is about. */
const checklistOf = (
  done: ReadonlyArray<(typeof STEPS)[number]>,
  observatory: { id: string; name: string; canAdmin: boolean; hasKey: boolean } | null = null,
) => ({
  steps: STEPS.map((id) => ({ id, done: done.includes(id) })),
  observatory,
});

/** The dashboard around the checklist: its heading takes the focus when the checklist goes. */
function Dashboard() {
  return (
    <main id="main">
      <h1 tabIndex={-1}>Welcome</h1>
      <GettingStarted />
    </main>
  );
}

const checklist = () => screen.queryByRole("region", { name: "Your first night" });
const step = (state: "Done" | "To do", number: number, title: string) => screen.getByRole("heading", { level: 3, name: `${state}: ${number}. ${title}` });

describe("the first-night checklist", () => {
  it("lists the five steps in order with what is done, and can be hidden by keyboard for good, focus on the page's heading", async () => {
    api = await startApi({ "auth.me": () => signedIn({ id: "usr_new" }), "user.gettingStarted": () => checklistOf([]) });
    const first = renderInApp(<Dashboard />);
    const list = await screen.findByRole("list", { name: "Your first night" });
    expect(within(list).getAllByRole("listitem")).toHaveLength(5);
    expect(step("To do", 1, "Join or create an organization or observatory")).toBeTruthy();
    expect(screen.getByText(/^0 of 5 steps done\./)).toBeTruthy();
    screen.getByRole("button", { name: "Hide the first-night checklist" }).focus();
    await userEvent.setup({ delay: null }).keyboard("{Enter}");
    await waitFor(() => expect(checklist()).toBeNull());
    expect(document.activeElement?.tagName).toBe("H1");
    first.unmount();
    renderInApp(<Dashboard />);
    await screen.findByRole("heading", { name: "Welcome" });
    expect(checklist()).toBeNull();
    expect(api.calls("user.gettingStarted")).toHaveLength(1);
  });

  it("tells a user who observes with someone else's observatory who sets it up, and where to see them", async () => {
    api = await startApi({
      "auth.me": () => signedIn({ id: "usr_viewer" }),
      "user.gettingStarted": () => checklistOf(["join"], { id: "oby_shared", name: "Shared dome", canAdmin: false, hasKey: false }),
    });
    renderInApp(<Dashboard />);
    await screen.findByRole("region", { name: "Your first night" });
    expect(step("Done", 1, "Join or create an organization or observatory")).toBeTruthy();
    expect(screen.getByText("Only the administrators of Shared dome set its location: ask one of them.")).toBeTruthy();
    expect(screen.getByText("The administrators of Shared dome create its plugin keys and connect its plugin: ask one of them.")).toBeTruthy();
    expect(screen.getAllByRole("link", { name: "See who administers Shared dome" })[0]!.getAttribute("href")).toBe("/observatories/oby_shared?tab=members");
  });

  it("keeps offering a new observatory after an organization came first, and goes for good once every step is done", async () => {
    let done: Array<(typeof STEPS)[number]> = ["join"];
    api = await startApi({ "auth.me": () => signedIn({ id: "usr_org" }), "user.gettingStarted": () => checklistOf(done) });
    const first = renderInApp(<Dashboard />);
    await screen.findByRole("region", { name: "Your first night" });
    expect(step("Done", 1, "Join or create an organization or observatory")).toBeTruthy();
    expect(within(checklist()!).getByRole("button", { name: "New observatory" })).toBeTruthy();
    first.unmount();

    done = [...STEPS];
    renderInApp(<Dashboard />);
    await waitFor(() => expect(api!.calls("user.gettingStarted").length).toBeGreaterThan(1));
    await waitFor(() => expect(checklist()).toBeNull());
    cleanup();
    // Undone later, it stays away: the checklist is over for this user in this browser.
    done = ["join"];
    renderInApp(<Dashboard />);
    await screen.findByRole("heading", { name: "Welcome" });
    expect(checklist()).toBeNull();
  });
});

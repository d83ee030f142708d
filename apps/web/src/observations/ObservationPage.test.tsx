// @vitest-environment happy-dom
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { RealtimeProvider } from "../lib/realtime";
import { ObservationPage } from "../pages/ObservationPage";
import { StubRefusal, startApi, type Procedures, type Answer } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { descriptionOf, renderInApp } from "../test-support/render";
import { observationFixture } from "./observation-fixtures";
import { ObservationLiveUpdates } from "./ObservationLiveUpdates";
import type { Observation } from "./labels";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

/** After a change the page reads the observation again: on a busy machine that takes more than findBy's default second. */
const AFTER_CHANGE = { timeout: 10_000 };
const CONTROLS = ["Edit", "Pause", "Change priority", "Clone", "Cancel observation"];

/** The observation page's API for `me`, with the observatory's permissions `permissions`; changes go to `observation` as the server makes them. */
function observationApi(me: string, permissions: Record<string, boolean>, observation: Observation): Procedures {
  const answer = () => ({ ...observation });
  const update = (fields: Partial<Observation>) => {
    Object.assign(observation, fields);
    return answer();
  };
  return {
    "auth.me": () => signedIn({ id: me }),
    "observations.get": answer,
    "observations.history": () => ({ items: [], nextCursor: null }),
    "observations.files": () => ({ items: [], lost: [] }),
    "observations.forecast": () => null as unknown as Answer<"observations.forecast">,
    "observatories.get": () => ({
      id: "oby_1",
      name: "Dome",
      timeZone: "Australia/Sydney",
      settings: { slewSeconds: 120, readoutSeconds: 10 },
      myPermissions: permissions,
    }),
    "projects.get": () => ({ id: "prj_1", name: "Survey", status: "active", frameGrading: null }) as unknown as Answer<"projects.get">,
    "observations.pause": () => update({ status: "paused" }),
    "observations.resume": () => update({ status: "pending" }),
    "observations.cancel": () => update({ status: "cancelled" }),
    "observations.update": (input: unknown) => update((input as { update: Partial<Observation> }).update),
    "observations.clone": () => {
      Object.assign(observation, { id: "obs_copy" });
      return answer();
    },
  };
}

function renderObservation() {
  renderInApp(
    <Routes>
      <Route path="/observations/:id" element={<ObservationPage />} />
    </Routes>,
    { path: "/observations/obs_1", where: true },
  );
}

const button = (name: string) => screen.queryByRole("button", { name });

describe("an observation's page", () => {
  it("shows a viewer no control, and an observer only Clone", async () => {
    api = await startApi(observationApi("usr_viewer", { can_view: true }, observationFixture()));
    renderObservation();
    await screen.findByRole("heading", { name: "Solo" });
    await waitFor(() => expect(api!.calls("projects.get").length).toBeGreaterThan(0));
    for (const name of CONTROLS) expect(button(name)).toBeNull();
    cleanup();
    await api.close();

    api = await startApi(observationApi("usr_observer", { can_view: true, can_observe: true }, observationFixture()));
    renderObservation();
    await screen.findByRole("button", { name: "Clone" });
    for (const name of CONTROLS.filter((name) => name !== "Clone")) expect(button(name)).toBeNull();
  });

  it("lets its owner pause and resume it, change its priority, edit it (a value out of range refused at its field, unsent) and clone it", async () => {
    api = await startApi(observationApi("usr_owner", { can_view: true, can_observe: true }, observationFixture()));
    renderObservation();
    const user = userEvent.setup({ delay: null });
    await user.click(await screen.findByRole("button", { name: "Pause" }));
    await screen.findByRole("button", { name: "Resume" }, AFTER_CHANGE);
    await screen.findByText("Paused: dispatch passes it by until it is resumed.", undefined, AFTER_CHANGE);
    expect(api.calls("observations.pause")).toEqual([{ id: "obs_1" }]);

    await user.click(screen.getByRole("button", { name: "Change priority" }));
    await user.selectOptions(within(await screen.findByRole("dialog")).getByLabelText("Priority"), "9");
    await user.click(screen.getByRole("button", { name: "Set priority" }));
    await screen.findByText(/priority 9/, undefined, AFTER_CHANGE);
    expect(api.calls("observations.update")).toEqual([{ id: "obs_1", update: { priority: 9 } }]);

    await user.click(screen.getByRole("button", { name: "Edit" }));
    const edit = await screen.findByRole("dialog", { name: "Edit observation" });
    const altitude = within(edit).getByLabelText("Minimum altitude (°)");
    await user.clear(altitude);
    await user.type(altitude, "95");
    await user.click(within(edit).getByRole("button", { name: "Save changes" }));
    await within(edit).findByText("Min altitude must be at most 90.");
    expect(api.calls("observations.update")).toHaveLength(1);

    const name = within(edit).getByLabelText("Name", { exact: true });
    await user.clear(name);
    await user.type(name, "Solo renamed");
    await user.clear(altitude);
    await user.type(altitude, "45");
    await user.click(within(edit).getByRole("button", { name: "Save changes" }));
    await screen.findByRole("heading", { name: "Solo renamed" }, AFTER_CHANGE);
    expect(api.calls("observations.update").at(-1)).toMatchObject({ id: "obs_1", update: { name: "Solo renamed", constraints: { minAltitude: 45 } } });
    await user.click(screen.getByRole("button", { name: "Resume" }));
    await screen.findByRole("button", { name: "Pause" }, AFTER_CHANGE);
    expect(api.calls("observations.resume")).toEqual([{ id: "obs_1" }]);

    // A clone opens on its own page, which says where it came from.
    await user.click(screen.getByRole("button", { name: "Clone" }));
    await user.click(within(await screen.findByRole("dialog", { name: "Clone observation" })).getByRole("button", { name: "Clone" }));
    await screen.findByText("A copy of Solo renamed is pending.", undefined, AFTER_CHANGE);
    expect(api.calls("observations.clone")).toEqual([{ id: "obs_1", priority: 9, overrides: {} }]);
    expect(screen.getByTestId("where").textContent).toBe("/observations/obs_copy");
  });

  it("asks before cancelling with “Keep it” and “Cancel observation”, never two Cancels, and cancels only when told", async () => {
    api = await startApi(observationApi("usr_owner", { can_view: true }, observationFixture({ name: "Keep or cancel" })));
    renderObservation();
    const user = userEvent.setup({ delay: null });
    await user.click(await screen.findByRole("button", { name: "Cancel observation" }));
    const dialog = await screen.findByRole("dialog", { name: "Cancel this observation?" });
    expect(
      within(dialog)
        .getAllByRole("button")
        .map((one) => one.textContent),
    ).toEqual(["Keep it", "Cancel observation"]);
    await user.click(within(dialog).getByRole("button", { name: "Keep it" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Cancel this observation?" })).toBeNull());
    expect(api.calls("observations.cancel")).toEqual([]);
    await user.click(screen.getByRole("button", { name: "Cancel observation" }));
    await user.click(within(await screen.findByRole("dialog", { name: "Cancel this observation?" })).getByRole("button", { name: "Cancel observation" }));
    await waitFor(() => expect(api!.calls("observations.cancel")).toEqual([{ id: "obs_1" }]));
  });
});

describe("an observation whose observatory was removed", () => {
  it("names the observatory as removed and says why it was cancelled", async () => {
    const removed = observationApi("usr_owner", {}, observationFixture({ status: "cancelled", statusReason: "observatory removed" }));
    api = await startApi({
      ...removed,
      "observatories.get": () => {
        throw new StubRefusal("NOT_FOUND", 404, "No such observatory");
      },
      "observatories.names": () => ({ items: [{ id: "oby_1", name: "Dome 1", removed: true }] }),
    });
    renderObservation();
    await screen.findByText(/Dome 1 \(removed\)/);
    expect(screen.getByText("Reason: observatory removed")).toBeTruthy();
  });
});

describe("an observation with candidate observatories", () => {
  it("says it may run at any of them, by name, and gives an operator of one no controls while it waits at none", async () => {
    const waiting = observationFixture({ observatoryId: null, candidateObservatoryIds: ["oby_1", "oby_2"] });
    api = await startApi({
      ...observationApi("usr_operator", { can_view: true, can_operate: true }, waiting),
      "observatories.names": () => ({ items: [{ id: "oby_2", name: "Dome 2", removed: false }] }),
    });
    renderObservation();
    await screen.findByText(/any of 2 observatories \(Dome, Dome 2\)/);
    for (const name of ["Edit", "Pause", "Cancel observation"]) expect(button(name)).toBeNull();
  });
});

describe("editing an observation with candidate observatories", () => {
  it("offers the filters each candidate reports and says which lacks the one chosen", async () => {
    const waiting = observationFixture({ observatoryId: null, candidateObservatoryIds: ["oby_1", "oby_2"] });
    const filters = { oby_1: ["V", "R"], oby_2: ["Ha"] } as Record<string, string[]>;
    api = await startApi({
      ...observationApi("usr_owner", { can_view: true, can_observe: true }, waiting),
      "observatories.get": ({ id }) => ({
        id,
        name: id === "oby_1" ? "Dome" : "Pico",
        timeZone: "UTC",
        filters: filters[id] ?? null,
        myPermissions: { can_view: true, can_observe: true },
      }),
      "observatories.names": () => ({ items: [{ id: "oby_2", name: "Pico", removed: false }] }),
    });
    renderObservation();
    const user = userEvent.setup({ delay: null });
    await user.click(await screen.findByRole("button", { name: "Edit" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit observation" });
    const filter = within(dialog).getByRole("combobox", { name: "Filter" });
    expect(
      within(filter)
        .getAllByRole("option")
        .map((option) => option.textContent),
    ).toEqual(["V", "R", "Ha"]);
    expect(descriptionOf(filter)).toBe("Not at Pico.");
  });
});

describe("an observation's times", () => {
  it("shows its window in the observatory's zone named by its offset, UTC on hover, and edits it on the same clocks", async () => {
    const start = "2031-01-02T10:00:00.000Z";
    const fixed = observationFixture({ type: "fixed_time", fixedTimeStart: start, fixedTimeEnd: "2031-01-02T15:00:00.000Z", estimatedSeconds: 330 });
    api = await startApi(observationApi("usr_owner", { can_view: true }, fixed));
    renderObservation();
    const notBefore = await screen.findByText("Jan 2, 2031, 21:00 UTC+11", { selector: "time" });
    expect(notBefore.getAttribute("datetime")).toBe(start);
    expect(notBefore.getAttribute("title")).toBe("2031-01-02 10:00 UTC");
    // The estimate: one 120 s slew, three 60 s exposures with a 10 s readout each (the server's sum).
    expect(screen.getByText("5 min 30 s", { exact: true })).toBeTruthy();

    const user = userEvent.setup({ delay: null });
    await user.click(screen.getByRole("button", { name: "Edit" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit observation" });
    expect(within(dialog).getByText("In the observatory's time zone, Australia/Sydney.")).toBeTruthy();
    expect((within(dialog).getByLabelText("Window start") as HTMLInputElement).value).toBe("2031-01-02T21:00");
    const end = within(dialog).getByLabelText("Window end") as HTMLInputElement;
    expect(end.value).toBe("2031-01-03T02:00");
    const described = (end.getAttribute("aria-describedby") ?? "").split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? "");
    expect(described.join(" ").trim()).toBe("Not after this time (optional). UTC+11");
    await user.clear(end);
    await user.type(end, "2031-01-03T03:30");
    await user.click(within(dialog).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(api!.calls("observations.update")).toHaveLength(1));
    // Only what changed is sent; the start stays as stored.
    expect(api.calls("observations.update")[0]).toEqual({ id: "obs_1", update: { fixedTimeEnd: "2031-01-02T16:30:00.000Z" } });
  });
});

describe("where and when a pending observation is planned", () => {
  const HOUR = 3_600_000;
  const candidates = observationFixture({ observatoryId: null, candidateObservatoryIds: ["oby_1", "oby_2", "oby_3"] });
  const names = () => ({
    items: [
      { id: "oby_2", name: "Pico", removed: false },
      { id: "oby_3", name: "Teide", removed: false },
    ],
  });
  const linkTo = (item: HTMLElement) => within(item).getByRole("link").getAttribute("href");

  it("names the observatory the network plan runs it at, linking to it, beside its start and end on that clock, and lists its candidates", async () => {
    const start = new Date(Date.now() + 2 * HOUR).toISOString();
    const forecast: Answer<"observations.forecast"> = {
      timeZone: "Australia/Sydney",
      expectedStart: start,
      expectedEnd: new Date(Date.parse(start) + HOUR).toISOString(),
      night: null,
      blockedBy: null,
      observatoryId: "oby_2",
    };
    api = await startApi({
      ...observationApi("usr_owner", { can_view: true, can_observe: true }, candidates),
      "observations.forecast": () => forecast,
      "observatories.names": names,
    });
    renderObservation();
    const planned = await screen.findByText(/^Planned at/);
    await waitFor(() => expect(planned.textContent).toBe("Planned at Pico in the network plan."));
    expect(linkTo(planned)).toBe("/observatories/oby_2");
    // Its start and end, each time naming its zone.
    expect(screen.getByText(/^Expected to start around \d\d:\d\d \(observatory time, UTC\+11\); expected to end around \d\d:\d\d\.$/)).toBeTruthy();
    const where = screen.getByRole("list", { name: "Where it may run" });
    const items = within(where).getAllByRole("listitem");
    expect(items.map((item) => item.textContent)).toEqual(["Dome", "Pico", "Teide"]);
    expect(items.map(linkTo)).toEqual(["/observatories/oby_1", "/observatories/oby_2", "/observatories/oby_3"]);
  });

  it("says why the network plan leaves it out, at each observatory, each time on that observatory's clock and named", async () => {
    const dark = new Date(Date.now() + 3 * HOUR).toISOString();
    api = await startApi({
      ...observationApi("usr_owner", { can_view: true, can_observe: true }, candidates),
      "observations.forecast": () => ({
        timeZone: "Australia/Sydney",
        expectedStart: null,
        expectedEnd: null,
        night: null,
        blockedBy: null,
        observatoryId: null,
      }),
      "observatories.names": names,
      "network.observationPlace": ({ id }) => ({
        observationId: id,
        computedAt: new Date().toISOString(),
        horizonEnd: new Date(Date.now() + 72 * HOUR).toISOString(),
        slots: [],
        reasons: [
          { observatoryId: "oby_1", timeZone: "Australia/Sydney", code: "NOT_DARK", until: dark },
          { observatoryId: "oby_2", timeZone: "Atlantic/Azores", code: "FILTER_MISSING", until: null },
        ],
      }),
    });
    renderObservation();
    const why = await screen.findByRole("list", { name: "Why it is not in the network plan" });
    const items = within(why).getAllByRole("listitem");
    await waitFor(() => expect(items[1]!.textContent).toMatch(/^Pico: /));
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringMatching(/^Dome: waiting for darkness \(astronomical\) until \d\d:\d\d \(observatory time, UTC\+11\)$/),
      "Pico: it asks for a filter this observatory's plugin does not report",
    ]);
    expect(items.map(linkTo)).toEqual(["/observatories/oby_1", "/observatories/oby_2"]);
    expect(screen.queryByText(/^Planned at/)).toBeNull();
    // Its own place in the plan, not the whole plan.
    expect(api.calls("network.observationPlace")).toEqual([{ id: "obs_1" }]);
    expect(api.called()).not.toContain("network.plan");
  });

  it("reads why again when its socket comes back after a drop: a new plan's event sent meanwhile was never heard", async () => {
    const stub = await startApi({
      ...observationApi("usr_owner", { can_view: true, can_observe: true }, candidates),
      "observations.forecast": () => ({
        timeZone: "Australia/Sydney",
        expectedStart: null,
        expectedEnd: null,
        night: null,
        blockedBy: null,
        observatoryId: null,
      }),
      "observatories.names": names,
      // The plan made while the socket was down: whatever is read once it is open again.
      "network.observationPlace": ({ id }) => ({
        observationId: id,
        reasons: [
          stub.realtime.opened() > 1
            ? { observatoryId: "oby_2", timeZone: "Atlantic/Azores", code: "FILTER_MISSING", until: null }
            : { observatoryId: "oby_2", timeZone: "Atlantic/Azores", code: "OBSERVATORY_BUSY", until: null },
        ],
      }),
    });
    renderInApp(
      <RealtimeProvider>
        <ObservationLiveUpdates />
        <Routes>
          <Route path="/observations/:id" element={<ObservationPage />} />
        </Routes>
      </RealtimeProvider>,
      "/observations/obs_1",
    );
    const why = () => screen.findByRole("list", { name: "Why it is not in the network plan" });
    await waitFor(async () => expect(within(await why()).getByRole("listitem").textContent).toBe("Pico: the night is taken by work ahead of it in the queue"));
    await waitFor(() => expect(stub.realtime.connections()).toBe(1));
    stub.realtime.drop();
    await waitFor(async () =>
      expect(within(await why()).getByRole("listitem").textContent).toBe("Pico: it asks for a filter this observatory's plugin does not report"),
    );
    expect(stub.realtime.opened()).toBe(2);
  });
});

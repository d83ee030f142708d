// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { EditObservatoryDialog } from "./EditObservatoryDialog";
import { observatoryFixture } from "./observatory-fixture";
import { ObservatoryOverview } from "./ObservatoryOverview";
import type { Observatory } from "./permissions";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

const sydney = observatoryFixture({
  name: "Siding Spring",
  location: { latitude: -31.2733, longitude: 149.0617, elevation: 1165 },
  timeZone: "Australia/Sydney",
  locationTimeZone: "Australia/Sydney",
});

async function openSettings(observatory: Observatory) {
  api = await startApi({ "auth.me": () => signedIn({ id: "usr_owner" }), "observatories.update": () => ({ ...observatory }) });
  let saved = false;
  renderInApp(<EditObservatoryDialog observatory={observatory} onClose={() => undefined} onSaved={() => (saved = true)} />);
  const dialog = await screen.findByRole("dialog", { name: "Observatory settings" });
  return { dialog, user: userEvent.setup({ delay: null }), saved: () => saved };
}

async function retype(user: ReturnType<typeof userEvent.setup>, field: HTMLElement, text: string) {
  await user.clear(field);
  if (text) await user.type(field, text);
}

describe("an observatory's settings", () => {
  it("take latitude and longitude as people write them, in degrees, minutes and seconds or in degrees, each mistake said at its field", async () => {
    const { dialog, user, saved } = await openSettings(observatoryFixture({ name: "Pachon" }));
    const field = (label: string) => within(dialog).getByLabelText(label) as HTMLInputElement;
    await retype(user, field("Latitude"), "-30:31:61");
    await retype(user, field("Longitude"), "west");
    await retype(user, field("Elevation (m)"), "2715");
    await user.click(within(dialog).getByRole("button", { name: "Save settings" }));
    await within(dialog).findByText("Latitude must have seconds below 60.");
    expect(within(dialog).getByText(/^Longitude must be degrees such as -70\.7367, or degrees, minutes and seconds such as -70:44:12/)).toBeTruthy();
    expect(api!.calls("observatories.update")).toEqual([]);
    // What was typed stays as typed: a number field would have kept -303136 of it.
    await retype(user, field("Latitude"), "-30:31:36");
    expect(field("Latitude").value).toBe("-30:31:36");
    await retype(user, field("Longitude"), "-70° 44′ 12″");
    await user.click(within(dialog).getByRole("button", { name: "Save settings" }));
    await waitFor(() => expect(saved()).toBe(true));
    const { update } = api!.calls("observatories.update")[0] as { update: { location: { latitude: number; longitude: number; elevation: number } } };
    expect(update.location.latitude).toBeCloseTo(-(30 + 31 / 60 + 36 / 3600), 9);
    expect(update.location.longitude).toBeCloseTo(-(70 + 44 / 60 + 12 / 3600), 9);
    expect(update.location.elevation).toBe(2715);
  });

  it("check a time zone as it is typed, and bound slew and readout seconds", async () => {
    const { dialog, user, saved } = await openSettings(sydney);
    const zone = within(dialog).getByLabelText("Time zone") as HTMLInputElement;
    expect(zone.value).toBe("Australia/Sydney");
    expect(within(dialog).getByText(/now Australia\/Sydney/)).toBeTruthy();
    await retype(user, zone, "Mars/Olympus_Mons");
    await within(dialog).findByText("Time zone must be an IANA time zone name such as Atlantic/Canary or UTC.");
    expect(zone.getAttribute("aria-invalid")).toBe("true");
    await retype(user, zone, "Europe/Madrid");
    await waitFor(() => expect(zone.getAttribute("aria-invalid")).toBeNull());
    await retype(user, within(dialog).getByLabelText("Slew time (s)"), "30");
    await retype(user, within(dialog).getByLabelText("Readout time (s)"), "4000");
    await user.click(within(dialog).getByRole("button", { name: "Save settings" }));
    await within(dialog).findByText("Readout time (s) must be between 0 and 600.");
    expect(api!.calls("observatories.update")).toEqual([]);
    await retype(user, within(dialog).getByLabelText("Readout time (s)"), "5");
    await user.click(within(dialog).getByRole("button", { name: "Save settings" }));
    await waitFor(() => expect(saved()).toBe(true));
    expect(api!.calls("observatories.update")[0]).toMatchObject({
      id: "oby_1",
      update: { timeZone: "Europe/Madrid", settings: { slewSeconds: 30, readoutSeconds: 5 } },
    });
  });

  it("send an emptied time zone so the location's applies again", async () => {
    const { dialog, user, saved } = await openSettings(observatoryFixture({ ...sydney, timeZone: "Europe/Madrid" }));
    await retype(user, within(dialog).getByLabelText("Time zone"), "");
    await user.click(within(dialog).getByRole("button", { name: "Save settings" }));
    await waitFor(() => expect(saved()).toBe(true));
    expect((api!.calls("observatories.update")[0] as { update: { timeZone: unknown } }).update.timeZone).toBeNull();
  });
});

describe("an observatory's overview", () => {
  it("shows its location, its zone (said to come from its location when it does) and its slew and readout times", async () => {
    api = await startApi({ "auth.me": () => signedIn({ id: "usr_owner" }) });
    renderInApp(
      <ObservatoryOverview
        observatory={observatoryFixture({ ...sydney, location: { latitude: -30.526666, longitude: -70.736666, elevation: 2715 } })}
        ownerName="Otto Owner"
      />,
    );
    expect(screen.getByText("-30.5267°, -70.7367° · 2715 m")).toBeTruthy();
    expect(screen.getAllByText(/Australia\/Sydney/).length).toBeGreaterThan(0);
    expect(screen.getByText("(from its location)")).toBeTruthy();
    expect(screen.getByText("Slew 120 s per target · readout 10 s per exposure")).toBeTruthy();
  });
});

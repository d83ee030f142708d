// @vitest-environment happy-dom
import { useQuery } from "@tanstack/react-query";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { startApi, type Procedures } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { trpc } from "../trpc";
import { DispatchSwitch } from "./DispatchSwitch";
import { observatoryFixture } from "./observatory-fixture";
import type { Observatory } from "./permissions";
import { RemoveObservatoryCard } from "./RemoveObservatoryCard";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

/** The observatory's controls as its page shows them, from what `observatories.get` answers now. */
function Controls() {
  const observatory = useQuery(trpc.observatories.get.queryOptions({ id: "oby_1" }));
  return observatory.data ? (
    <>
      <DispatchSwitch observatory={observatory.data} />
      <RemoveObservatoryCard observatory={observatory.data} />
    </>
  ) : null;
}

const ADMIN = { can_view: true, can_observe: true, can_operate: true, can_admin: true };

function controlsApi(me: string, observatory: Observatory): Procedures {
  return {
    "auth.me": () => signedIn({ id: me }),
    "observatories.get": () => ({ ...observatory }),
    "observatories.update": (input: unknown) => {
      Object.assign(observatory, (input as { update: Partial<Observatory> }).update);
      return { ...observatory };
    },
    "observatories.remove": () => ({ ok: true }),
    // Its queue: one pending and one paused observation, none running.
    "observations.list": (input: unknown) => {
      const status = (input as { status: string }).status;
      return { items: status === "pending" || status === "paused" ? [{ id: `o-${status}` }] : [], nextCursor: null };
    },
  };
}

describe("an observatory's dispatch and removal", () => {
  it("shows others dispatch as it is, without a switch and without removal", async () => {
    api = await startApi(controlsApi("usr_observer", observatoryFixture({ myPermissions: { ...ADMIN, can_admin: false, can_operate: false } })));
    renderInApp(<Controls />, { where: true });
    const dispatch = await screen.findByRole("region", { name: "Dispatch" });
    expect(within(dispatch).getByText("Dispatch on")).toBeTruthy();
    expect(screen.queryByRole("switch")).toBeNull();
    expect(screen.queryByRole("button", { name: "Remove observatory" })).toBeNull();
  });

  it("lets its owner switch dispatch by keyboard, and remove it once its name is typed, saying what becomes of its queue", async () => {
    api = await startApi(controlsApi("usr_owner", observatoryFixture({ myPermissions: ADMIN })));
    renderInApp(<Controls />, { path: "/observatories/oby_1", where: true });
    const user = userEvent.setup({ delay: null });
    (await screen.findByRole("switch", { name: "Dispatch" })).focus();
    await user.keyboard(" ");
    await waitFor(() => expect(api!.calls("observatories.update")).toEqual([{ id: "oby_1", update: { dispatchEnabled: false } }]));
    await waitFor(() => expect(api!.calls("observatories.get").length).toBeGreaterThan(1));
    await screen.findByText("Off: observations wait in the queue; none is sent.");

    await user.click(screen.getByRole("button", { name: "Remove observatory" }));
    const dialog = await screen.findByRole("dialog", { name: "Remove Dome 1?" });
    await within(dialog).findByText(/^Its queue is cancelled: 1 pending and 1 paused observations/);
    expect(within(dialog).getByText(/its announcements stop showing \(active ones are cancelled, acknowledged ones end\)/)).toBeTruthy();
    const confirm = within(dialog).getByRole("button", { name: "Remove observatory" }) as HTMLButtonElement;
    const typed = within(dialog).getByLabelText("Type the observatory's name to confirm");
    await user.type(typed, "Dome 1x");
    expect(confirm.disabled).toBe(true);
    await user.clear(typed);
    await user.type(typed, "Dome 1");
    await waitFor(() => expect(confirm.disabled).toBe(false));
    await user.click(confirm);
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/observatories"));
    expect(api.calls("observatories.remove")).toEqual([{ id: "oby_1" }]);
  });
});

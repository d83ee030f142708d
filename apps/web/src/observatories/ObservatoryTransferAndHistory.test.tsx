// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { observatoryFixture } from "./observatory-fixture";
import { ObservatoryHistory } from "./ObservatoryHistory";
import { TransferObservatoryDialog } from "./TransferObservatoryDialog";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

const none = { can_view: false, can_observe: false, can_operate: false, can_admin: false };

describe("an observatory's transfer", () => {
  it("waits for the new owner's name to be typed, then transfers to that member", async () => {
    api = await startApi({
      "auth.me": () => signedIn({ id: "usr_owner" }),
      "observatories.members": () => ({
        users: [
          { userId: "usr_owner", name: "Otto Owner", email: "otto@example.com", permissions: { ...none, can_admin: true }, source: "owner" },
          { userId: "usr_heir", name: "Hanna Heir", email: "hanna@example.com", permissions: { ...none, can_view: true }, source: "direct" },
        ],
        organizations: [],
      }),
      "observatories.transferOwnership": () => ({ ...observatoryFixture(), owner: { kind: "user", id: "usr_heir", name: "Hanna Heir" } }),
    });
    let transferredTo: string | undefined;
    renderInApp(
      <TransferObservatoryDialog
        observatory={observatoryFixture({ name: "Dome 1" })}
        onClose={() => undefined}
        onTransferred={(name) => (transferredTo = name)}
      />,
    );
    const dialog = await screen.findByRole("dialog", { name: "Transfer ownership" });
    const user = userEvent.setup({ delay: null });
    await waitFor(() => expect(within(dialog).getByRole("option", { name: "Hanna Heir (hanna@example.com)" })).toBeTruthy());
    await user.selectOptions(within(dialog).getByLabelText("New owner"), within(dialog).getByRole("option", { name: "Hanna Heir (hanna@example.com)" }));
    const confirm = within(dialog).getByRole("button", { name: "Transfer ownership" }) as HTMLButtonElement;
    const typed = within(dialog).getByLabelText("Type the new owner's email or name to confirm");
    await user.type(typed, "Hanna");
    expect(confirm.disabled).toBe(true);
    await user.type(typed, " Heir");
    await waitFor(() => expect(confirm.disabled).toBe(false));
    await user.click(confirm);
    await waitFor(() => expect(transferredTo).toBe("Hanna Heir"));
    expect(api.calls("observatories.transferOwnership")).toEqual([{ id: "oby_1", to: { kind: "user", id: "usr_heir" } }]);
  });
});

describe("an observatory's history", () => {
  it("tells every step in words, and names who acted, never as a former member", async () => {
    const at = "2026-11-20T10:00:00.000Z";
    const by = { actorId: "usr_nora", actorName: "Nora Founder", at };
    api = await startApi({
      "auth.me": () => signedIn({ id: "usr_omar" }),
      "observatories.history": () => ({
        items: [
          { id: "h5", type: "ownership_transferred", data: { fromName: "Otto Owner", toName: "Hanna Heir", to: { kind: "user", id: "usr_heir" } }, ...by },
          { id: "h4", type: "settings_changed", data: { changes: { dispatchEnabled: { before: true, after: false } } }, ...by },
          { id: "h3", type: "member_added", data: { userName: "Hanna Heir", permissionsAfter: { ...none, can_view: true } }, ...by },
          { id: "h2", type: "organization_added", data: { organizationName: "Stromlo", owning: true, permissionsAfter: none }, ...by },
          { id: "h1", type: "created", data: { name: "Dome 1", ownerName: "Otto Owner" }, ...by },
        ],
        nextCursor: null,
      }),
    });
    renderInApp(<ObservatoryHistory observatoryId="oby_1" names={() => undefined} />);
    const history = await screen.findByRole("list", { name: "Observatory history" });
    for (const said of [
      "Ownership transferred from Otto Owner to Hanna Heir",
      "Dispatch: on → off",
      "Hanna Heir added",
      "Stromlo added as owner",
      "Observatory created as Dome 1",
    ])
      expect(within(history).getByText(said)).toBeTruthy();
    const actors = within(history).getAllByText((_, element) => element?.tagName === "P" && /^by Nora Founder · /.test(element.textContent ?? ""));
    expect(actors).toHaveLength(5);
    expect(within(history).queryByText(/former member/)).toBeNull();
  });
});

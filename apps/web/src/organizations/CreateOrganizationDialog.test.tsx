// @vitest-environment happy-dom
import { useState } from "react";
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { StubRefusal, startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { CreateOrganizationDialog } from "./CreateOrganizationDialog";

/** The dialog behind its opening button, as the Organizations page has it. */
function Opener({ onClosed = () => undefined }: { onClosed?(): void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        New organization
      </button>
      {open ? (
        <CreateOrganizationDialog
          onClose={() => {
            onClosed();
            setOpen(false);
          }}
          onCreated={() => setOpen(false)}
        />
      ) : null}
    </>
  );
}

const question = () => screen.queryByRole("alertdialog", { name: "Discard your changes?" });

async function open(user: ReturnType<typeof renderInApp>["user"]) {
  await user.click(screen.getByRole("button", { name: "New organization" }));
  const dialog = await screen.findByRole("dialog", { name: "Create organization" });
  return { dialog, name: within(dialog).getByLabelText("Name", { exact: true }) as HTMLInputElement };
}

describe("the Create organization dialog, closed with what was typed", () => {
  it("closes untouched at once; typed, asks first: Keep editing keeps the text, Discard closes; typed and deleted again closes at once", async () => {
    await startApi({ "auth.me": () => signedIn() });
    const closed = { count: 0 };
    const { user } = renderInApp(<Opener onClosed={() => (closed.count += 1)} />);

    // Untouched: its close button closes it without a question.
    let { dialog, name } = await open(user);
    await waitFor(() => expect(document.activeElement).toBe(name));
    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Create organization" })).toBeNull());
    expect(question()).toBeNull();
    expect(closed.count).toBe(1);

    // Typed: the close button asks, with Keep editing focused; Keep editing keeps the text.
    ({ dialog, name } = await open(user));
    await user.type(name, "Half-typed network");
    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    const asked = await screen.findByRole("alertdialog", { name: "Discard your changes?" });
    await waitFor(() => expect(document.activeElement).toBe(within(asked).getByRole("button", { name: "Keep editing" })));
    await user.click(within(asked).getByRole("button", { name: "Keep editing" }));
    await waitFor(() => expect(question()).toBeNull());
    expect(name.value).toBe("Half-typed network");
    expect(closed.count).toBe(1);

    // Cancel asks too; Discard closes it.
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await user.click(within(await screen.findByRole("alertdialog", { name: "Discard your changes?" })).getByRole("button", { name: "Discard" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Create organization" })).toBeNull());
    expect(question()).toBeNull();
    expect(closed.count).toBe(2);

    // Typed and deleted again: nothing differs from the start, so it closes at once.
    ({ dialog, name } = await open(user));
    await user.type(name, "x{Backspace}");
    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Create organization" })).toBeNull());
    expect(question()).toBeNull();
    expect(closed.count).toBe(3);
  });

  // Where focus goes once the busy submit button drops it is in tests/e2e/keyboard-and-zones (a disabled button keeps focus in happy-dom).
  it("shows the server's refusal at its field, and still asks before discarding what was typed", async () => {
    const api = await startApi({
      "auth.me": () => signedIn(),
      "organizations.create": () => {
        throw new StubRefusal("SHORT_NAME_TAKEN", 409, "Another organization already uses this short name", [
          { path: "shortName", message: "Another organization already uses this short name" },
        ]);
      },
    });
    const { user } = renderInApp(<Opener />);
    const { dialog, name } = await open(user);
    await user.type(name, "Second holder");
    const shortName = within(dialog).getByLabelText("Short name");
    await user.type(shortName, "taken-one");
    await user.selectOptions(within(dialog).getByLabelText("Type"), "nonprofit");
    await user.type(within(dialog).getByLabelText("Contact email"), "second@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Create organization" }));

    await waitFor(() => expect(shortName.getAttribute("aria-invalid")).toBe("true"));
    expect(within(dialog).getByText("Another organization already uses this short name")).toBeTruthy();
    expect(api.calls("organizations.create")).toHaveLength(1);

    // What was typed survived the refusal, so closing still asks.
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    const asked = await screen.findByRole("alertdialog", { name: "Discard your changes?" });
    await user.click(within(asked).getByRole("button", { name: "Keep editing" }));
    await waitFor(() => expect(question()).toBeNull());
    expect((shortName as HTMLInputElement).value).toBe("taken-one");
  });
});

// @vitest-environment happy-dom
import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { CreateAnnouncementDialog } from "./CreateAnnouncementDialog";

describe("the new announcement dialog", () => {
  it("names the time zone of its dates and explains email acknowledgment", async () => {
    await startApi({ "auth.me": () => signedIn({ roles: ["serverAdmin"] }) });
    renderInApp(<CreateAnnouncementDialog destination={{ scope: "system" }} onClose={() => undefined} onCreated={() => undefined} />);
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    await screen.findByRole("dialog", { name: "New system announcement" });
    expect(screen.getByLabelText(`Starts (${zone})`)).toBeTruthy();
    expect(screen.getByLabelText(`Expires (${zone})`)).toBeTruthy();
    expect(screen.getByText(/recipients count as acknowledged once their email is sent/)).toBeTruthy();
    expect(screen.getByRole("button", { name: /^Send/ })).toBeTruthy();
  });
});

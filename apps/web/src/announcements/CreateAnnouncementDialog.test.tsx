// @vitest-environment happy-dom
import { cleanup, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { renderPage, signedIn, startPageApi } from "../pages/page-test-support";
import { CreateAnnouncementDialog } from "./CreateAnnouncementDialog";

let api: Awaited<ReturnType<typeof startPageApi>> | undefined;
afterEach(async () => {
  cleanup();
  await api?.close();
  api = undefined;
});

describe("the new announcement dialog", () => {
  it("names the time zone of its dates and explains email acknowledgment", async () => {
    api = await startPageApi({ "auth.me": () => signedIn({ roles: ["serverAdmin"] }) });
    renderPage(<CreateAnnouncementDialog destination={{ scope: "system" }} onClose={() => undefined} onCreated={() => undefined} />);
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    await screen.findByRole("dialog", { name: "New system announcement" });
    expect(screen.getByLabelText(`Starts (${zone})`)).toBeTruthy();
    expect(screen.getByLabelText(`Expires (${zone})`)).toBeTruthy();
    expect(screen.getByText(/recipients count as acknowledged once their email is sent/)).toBeTruthy();
    expect(screen.getByRole("button", { name: /^Send/ })).toBeTruthy();
  });
});

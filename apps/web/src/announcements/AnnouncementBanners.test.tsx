// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { announcementFixture } from "./announcement-fixture";
import { AnnouncementBanners } from "./AnnouncementBanners";

afterEach(() => localStorage.clear());

/** A system announcement the reader acknowledged already (in the blocking modal). */
const acknowledged = (id: string, title: string) => announcementFixture(id, title, { severity: "info", acknowledgedAt: "2026-11-20T10:05:00.000Z" });

describe("the dashboard's announcements", () => {
  it("lets a reader dismiss an acknowledged announcement by keyboard, for good, the keyboard going on from the next banner", async () => {
    await startApi({
      "auth.me": () => signedIn({ id: "usr_reader" }),
      "announcements.current": () => ({ items: [acknowledged("ann_1", "Maintenance window"), acknowledged("ann_2", "Network change")] }),
      "announcements.pending": () => ({ items: [] }),
      "announcements.markSeen": () => ({ seen: 1 }),
    });
    const first = renderInApp(<AnnouncementBanners />);
    const banners = await screen.findByRole("region", { name: "Announcements" });
    await within(banners).findByRole("heading", { name: "Maintenance window" });
    screen.getByRole("button", { name: "Dismiss Maintenance window" }).focus();
    await userEvent.setup({ delay: null }).keyboard("{Enter}");
    await waitFor(() => expect(within(banners).queryByRole("heading", { name: "Maintenance window" })).toBeNull());
    await waitFor(() => expect(document.activeElement?.textContent).toContain("Dismiss Network change"));

    // After a reload: the dismissed one stays away, the other shows.
    first.unmount();
    renderInApp(<AnnouncementBanners />);
    await screen.findByRole("heading", { name: "Network change" });
    expect(screen.queryByRole("heading", { name: "Maintenance window" })).toBeNull();
  });
});

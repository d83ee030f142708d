// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { announcementFixture } from "../announcements/announcement-fixture";
import type { Announcement, RecipientsView } from "../announcements/types";
import { StubRefusal, startApi, type Procedures } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { AnnouncementsPage } from "./AnnouncementsPage";

const ADMIN_ID = "usr_admin";
const ADMIN = signedIn({ id: ADMIN_ID, name: "Ada Admin", roles: ["serverAdmin"] });
const EVERYONE = 7;

const announcement = (id: string, title: string, fields: Partial<Announcement> = {}) => announcementFixture(id, title, { createdBy: ADMIN_ID, ...fields });

type Recipient = RecipientsView["items"][number];
const recipient = (userId: string, name: string, acknowledgedAt: string | null = null): Recipient => ({
  userId,
  name,
  email: `${userId}@example.com`,
  status: acknowledgedAt ? "acknowledged" : "pending",
  acknowledgedAt,
  emailedAt: null,
  seenAt: acknowledgedAt,
  via: "user",
  emailState: null,
  emailError: null,
});

/**
 * The server's system announcements as the page asks for them: listed by status, counted before
 * sending (every user for All users), created (refused without a target, as the server does; the
 * admin acknowledged as its creator), cancelled with a reason, and their recipients.
 */
function announcementsApi(stored: Announcement[], recipients: Record<string, Recipient[]> = {}): Procedures {
  return {
    "auth.me": () => ADMIN,
    "announcements.stats": () => ({ scopes: [] }),
    "announcements.managed": (input) => ({
      items: input.scope === "system" ? stored.filter((one) => !input.status || one.status === input.status) : [],
      nextCursor: null,
    }),
    "announcements.previewSystem": ({ targets }) => ({ recipientCount: targets.users?.all ? EVERYONE : 1 }),
    "announcements.createSystem": (input) => {
      if (!Object.values(input.targets).some((target) => target?.all || target?.ids?.length))
        throw new StubRefusal("NO_RECIPIENTS", 400, "Choose at least one target", [{ path: "targets", message: "Targets must name at least one target" }]);
      const created = announcement(`ann_${stored.length + 1}`, input.title, {
        message: input.message,
        severity: input.severity,
        startsAt: new Date(Date.now() - 1_000).toISOString(),
        recipientCount: EVERYONE,
        acknowledgedCount: 1,
      });
      stored.unshift(created);
      return created;
    },
    "announcements.cancel": ({ id, reason }) => {
      const cancelled = stored.find((one) => one.id === id)!;
      Object.assign(cancelled, { status: "cancelled", cancellationReason: reason, cancelledAt: "2026-11-21T09:00:00.000Z" });
      return cancelled;
    },
    "announcements.recipients": ({ id, status }) => {
      const all = recipients[id] ?? [];
      const cancelled = stored.find((one) => one.id === id)!;
      const acknowledged = all.filter((one) => one.acknowledgedAt).length;
      return {
        items: all.filter((one) => !status || one.status === status),
        nextCursor: null,
        counts: { total: all.length, acknowledged, pending: all.length - acknowledged, emailed: 0, seen: acknowledged, emailFailed: 0 },
        cancellation:
          cancelled.status === "cancelled"
            ? { reason: cancelled.cancellationReason!, cancelledAt: cancelled.cancelledAt!, cancelledBy: ADMIN_ID, cancelledByName: "Ada Admin" }
            : null,
      };
    },
  };
}

/** The row of `title` in the system table, once the table is there. */
const rowOf = (title: string) => {
  const table = screen.queryByRole("table", { name: "System announcements" });
  return table
    ? within(table)
        .queryAllByRole("row")
        .find((row) => row.textContent?.includes(title))
    : undefined;
};
const showStatus = async (user: ReturnType<typeof renderInApp>["user"], label: string) =>
  user.click(within(screen.getByRole("group", { name: "Show system announcements" })).getByRole("button", { name: label }));

describe("the Announcements page", () => {
  it("sends a system announcement to all users: refused at the recipients without a target, counted before sending, then listed", async () => {
    const stored: Announcement[] = [];
    const api = await startApi(announcementsApi(stored));
    const { user } = renderInApp(<AnnouncementsPage />, "/announcements");
    await screen.findByRole("heading", { name: "Announcements", level: 1 });
    await user.click(await screen.findByRole("button", { name: "New system announcement" }));
    const dialog = await screen.findByRole("dialog", { name: "New system announcement" });
    within(dialog).getByText("Choose who receives it.");

    await user.type(within(dialog).getByLabelText("Title"), "Planned downtime");
    await user.type(within(dialog).getByLabelText("Message"), "The archive is offline on Saturday from 08:00 to 12:00 UTC.");
    await user.selectOptions(within(dialog).getByLabelText("Severity"), "warning");
    await user.click(within(dialog).getByRole("button", { name: "Send announcement" }));
    await within(dialog).findByText(/at least one target/i);
    expect(stored).toEqual([]);

    await user.click(within(dialog).getByLabelText("All users"));
    await within(dialog).findByText(`It will reach ${EVERYONE} recipients.`);
    expect(api.calls("announcements.previewSystem").at(-1)).toMatchObject({ targets: { users: { all: true } } });
    await user.click(within(dialog).getByRole("button", { name: `Send to ${EVERYONE} recipients` }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New system announcement" })).toBeNull());
    await screen.findAllByText(`Planned downtime was sent to ${EVERYONE} recipients.`);
    expect(api.calls("announcements.createSystem").at(-1)).toMatchObject({ title: "Planned downtime", severity: "warning", targets: { users: { all: true } } });

    // The admin is a recipient too, acknowledged as its creator.
    await waitFor(() => expect(rowOf("Planned downtime")).toBeDefined());
    const row = rowOf("Planned downtime")!;
    within(row).getByText("Active", { exact: true });
    within(row).getByText("Warning", { exact: true });
    within(row).getByText(`1 / ${EVERYONE}`);
  });

  it("shows an announcement's recipients, who is pending and who acknowledged, filtered by Show, and closes by its button", async () => {
    const title = "Archive offline";
    await startApi(
      announcementsApi([announcement("ann_1", title, { recipientCount: 2, acknowledgedCount: 1 })], {
        ann_1: [recipient("usr_bea", "Bea Blocked"), recipient("usr_cal", "Cal Acknowledged", "2026-11-20T11:00:00.000Z")],
      }),
    );
    const { user } = renderInApp(<AnnouncementsPage />, "/announcements");
    await screen.findByText(title);
    await showStatus(user, "Active");
    await waitFor(() => expect(rowOf(title)).toBeDefined());
    await user.click(within(rowOf(title)!).getByRole("button", { name: `Recipients of ${title}` }));
    const drawer = await screen.findByRole("dialog", { name: `Recipients of ${title}` });
    // Recipients, acknowledged, pending, emailed, seen in the app.
    const counts = () =>
      within(drawer)
        .queryAllByRole("definition")
        .map((count) => count.textContent);
    await waitFor(() => expect(counts()).toEqual(["2", "1", "1", "0", "1"]));
    const recipientRow = (email: string) =>
      within(within(drawer).getByRole("table", { name: "Recipients" }))
        .queryAllByRole("row")
        .find((row) => row.textContent?.includes(email));
    within(recipientRow("usr_bea@example.com")!).getByText("Pending", { exact: true });
    expect(within(recipientRow("usr_cal@example.com")!).queryByText("Pending", { exact: true })).toBeNull();
    // The Acknowledged column gives the time instead.
    expect(recipientRow("usr_cal@example.com")!.querySelector("td:last-child time")).not.toBeNull();

    await user.selectOptions(within(drawer).getByLabelText("Show"), "acknowledged");
    await waitFor(() => expect(recipientRow("usr_bea@example.com")).toBeUndefined());
    await user.selectOptions(within(drawer).getByLabelText("Show"), "pending");
    await waitFor(() => expect(recipientRow("usr_bea@example.com")).toBeDefined());
    expect(recipientRow("usr_cal@example.com")).toBeUndefined();
    await user.click(within(drawer).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: `Recipients of ${title}` })).toBeNull());
  });

  it("cancels an announcement only with a reason, then lists it under Cancelled with the reason and who cancelled it", async () => {
    const title = "Firmware update";
    const stored = [announcement("ann_1", title, { severity: "critical" })];
    const api = await startApi(announcementsApi(stored, { ann_1: [recipient("usr_bea", "Bea Blocked")] }));
    const { user } = renderInApp(<AnnouncementsPage />, "/announcements");
    await screen.findByText(title);
    await showStatus(user, "Active");
    await waitFor(() => expect(rowOf(title)).toBeDefined());
    await user.click(within(rowOf(title)!).getByRole("button", { name: `Cancel ${title}` }));
    const dialog = await screen.findByRole("dialog", { name: "Cancel announcement" });
    const confirm = within(dialog).getByRole("button", { name: "Cancel announcement" }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    await user.type(within(dialog).getByLabelText("Reason"), "   ");
    expect(confirm.disabled).toBe(true);
    await user.clear(within(dialog).getByLabelText("Reason"));
    await user.type(within(dialog).getByLabelText("Reason"), "Wrong firmware version announced");
    expect(confirm.disabled).toBe(false);
    await user.click(confirm);
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Cancel announcement" })).toBeNull());
    expect(api.calls("announcements.cancel")).toEqual([{ ref: { scope: "system" }, id: "ann_1", reason: "Wrong firmware version announced" }]);
    await screen.findAllByText(`${title} was cancelled.`);
    await waitFor(() => expect(rowOf(title)).toBeUndefined());

    await showStatus(user, "Cancelled");
    await waitFor(() => expect(rowOf(title)).toBeDefined());
    within(rowOf(title)!).getByText("Cancelled", { exact: true });
    expect(within(rowOf(title)!).queryByRole("button", { name: `Cancel ${title}` })).toBeNull();
    await user.click(within(rowOf(title)!).getByRole("button", { name: `Recipients of ${title}` }));
    const drawer = await screen.findByRole("dialog", { name: `Recipients of ${title}` });
    await within(drawer).findByText("Reason: Wrong firmware version announced");
    within(drawer).getByText(/^Cancelled by Ada Admin/);
  });
});

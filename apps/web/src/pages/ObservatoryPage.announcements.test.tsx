// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { fieldMessage } from "@meridian/rules";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import type { Announcement } from "../announcements/types";
import { observatoryFixture } from "../observatories/observatory-fixture";
import { StubRefusal, startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { ObservatoryPage } from "./ObservatoryPage";

const OWNER_ID = "usr_owner";
const OWNER = signedIn({ id: OWNER_ID, name: "Owner Olga" });
const ADMIN_RIGHTS = { can_view: true, can_observe: true, can_operate: true, can_admin: true };
const FUTURE = fieldMessage(["expiresAt"], "must lie in the future");

describe("an observatory's page, for its owner", () => {
  it("sends an announcement to the observatory, with the server's schedule refusal at its field, then shows it under Announcements", async () => {
    const observatory = observatoryFixture({ name: "Dome Motd", myPermissions: ADMIN_RIGHTS });
    const sent: Announcement[] = [];
    const api = await startApi({
      "auth.me": () => OWNER,
      "observatories.get": () => observatory,
      "observatories.myPermissions": () => ({ ...ADMIN_RIGHTS, sources: [] }),
      "observatories.members": () => ({ users: [], organizations: [] }),
      "organizations.list": () => ({ items: [], nextCursor: null }),
      "announcements.previewScoped": () => ({ recipientCount: 1 }),
      "announcements.createScoped": ({ scopeId, announcement }) => {
        if (announcement.expiresAt) throw new StubRefusal("VALIDATION_FAILED", 400, "The schedule is not valid", [{ path: "expiresAt", message: FUTURE }]);
        const created = {
          id: "ann_roof",
          scope: "observatory",
          scopeId,
          scopeName: observatory.name,
          title: announcement.title,
          message: announcement.message,
          severity: announcement.severity ?? "info",
          startsAt: new Date(Date.now() - 1_000).toISOString(),
          expiresAt: null,
          deliveryType: announcement.deliveryType ?? "message",
          status: "active",
          createdAt: new Date().toISOString(),
          createdBy: OWNER_ID,
          createdByName: "Owner Olga",
          recipientCount: 1,
          acknowledgedCount: 1,
          cancellationReason: null,
          cancelledAt: null,
          acknowledgedAt: new Date().toISOString(),
        } satisfies Announcement;
        sent.push(created);
        return created;
      },
      "announcements.listActive": () => ({ items: sent }),
      "announcements.history": () => ({ items: sent, nextCursor: null }),
      "announcements.markSeen": ({ ids }) => ({ seen: ids.length }),
    });
    const { user } = renderInApp(
      <Routes>
        <Route path="/observatories/:id" element={<ObservatoryPage />} />
      </Routes>,
      { path: `/observatories/${observatory.id}`, where: true },
    );
    await screen.findByRole("heading", { name: "Dome Motd", level: 1 });
    await user.click(await screen.findByRole("button", { name: "New announcement" }));
    const dialog = await screen.findByRole("dialog", { name: "New observatory announcement" });
    await user.type(within(dialog).getByLabelText("Title"), "Roof sensor fault");
    await user.type(within(dialog).getByLabelText("Message"), "The roof stays closed until the rain sensor is replaced.");
    const expires = within(dialog).getByLabelText(/^Expires/);
    await user.type(expires, "2020-01-01T10:00");
    await user.click(await within(dialog).findByRole("button", { name: "Send to 1 recipient" }));
    await within(dialog).findByText(FUTURE);
    expect(expires.getAttribute("aria-invalid")).toBe("true");

    await user.clear(expires);
    await user.click(within(dialog).getByRole("button", { name: "Send to 1 recipient" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New observatory announcement" })).toBeNull());
    expect(api.calls("announcements.createScoped").at(-1)).toMatchObject({
      scope: "observatory",
      scopeId: observatory.id,
      announcement: { title: "Roof sensor fault", message: "The roof stays closed until the rain sensor is replaced." },
    });
    await waitFor(() => expect(screen.getByRole("tab", { name: "Announcements" }).getAttribute("aria-selected")).toBe("true"));
    expect(screen.getByTestId("where").textContent).toContain("tab=announcements");
    const active = await screen.findByRole("list", { name: "Active observatory announcements" });
    await within(active).findByRole("article", { name: "Roof sensor fault" });
    const history = await screen.findByRole("table", { name: "Observatory announcement history" });
    await waitFor(() =>
      expect(
        within(history)
          .queryAllByRole("row")
          .some((row) => row.textContent?.includes("Roof sensor fault")),
      ).toBe(true),
    );
  });
});

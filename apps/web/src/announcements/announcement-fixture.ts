import type { Announcement } from "./types";

/** An active system announcement (a warning, created by `usr_admin` on 20 Nov) as the server answers it; `fields` override. */
export const announcementFixture = (id: string, title: string, fields: Partial<Announcement> = {}): Announcement => ({
  id,
  scope: "system",
  scopeId: null,
  scopeName: null,
  title,
  message: `About ${title}.`,
  severity: "warning",
  startsAt: "2026-11-20T10:00:00.000Z",
  expiresAt: null,
  deliveryType: "message",
  status: "active",
  createdAt: "2026-11-20T10:00:00.000Z",
  createdBy: "usr_admin",
  createdByName: "Ada Admin",
  recipientCount: 1,
  acknowledgedCount: 0,
  cancellationReason: null,
  cancelledAt: null,
  ...fields,
});

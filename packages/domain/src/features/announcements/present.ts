import type { AnnouncementDoc } from "@meridian/db";
import type { Announcement } from "./schemas";

export interface AnnouncementRow {
  id: string;
  doc: AnnouncementDoc;
  createdAt: Date;
  status: string;
  recipientCount: number;
  acknowledgedCount: number;
}

/**
 * The wire shape. Status and counts come from the key columns, which the set-based updates
 * keep current; targets (which name users and objects) are shown to senders only.
 */
export function presentAnnouncement(options: { row: AnnouncementRow; includeTargets: boolean; acknowledgedAt?: Date | string | null }): Announcement {
  const { row } = options;
  const { doc } = row;
  return {
    id: row.id,
    scope: doc.scope,
    scopeId: doc.scopeId,
    scopeName: doc.scopeName,
    title: doc.title,
    message: doc.message,
    severity: doc.severity,
    startsAt: doc.startsAt,
    expiresAt: doc.expiresAt,
    deliveryType: doc.deliveryType,
    ...(doc.scope === "system" && options.includeTargets ? { targets: doc.targets } : {}),
    status: row.status as Announcement["status"],
    createdAt: row.createdAt.toISOString(),
    createdBy: doc.createdBy,
    createdByName: doc.createdByName,
    recipientCount: row.recipientCount,
    acknowledgedCount: row.acknowledgedCount,
    cancellationReason: doc.cancellationReason,
    cancelledAt: doc.cancelledAt,
    ...(options.acknowledgedAt !== undefined
      ? { acknowledgedAt: options.acknowledgedAt === null ? null : new Date(options.acknowledgedAt).toISOString() }
      : {}),
  };
}

/** Columns to select so rows fit `AnnouncementRow`. */
export const announcementColumns = (alias = "a") =>
  `${alias}.id, ${alias}.doc, ${alias}.created_at as "createdAt", ${alias}.status, ${alias}.recipient_count ` +
  `as "recipientCount", ${alias}.acknowledged_count as "acknowledgedCount"`;

/** Raw rows from `db.execute` carry timestamps as strings. */
export function toAnnouncementRow(record: Record<string, unknown>): AnnouncementRow {
  return {
    id: record.id as string,
    doc: record.doc as AnnouncementDoc,
    createdAt: new Date(record.createdAt as string | Date),
    status: record.status as string,
    recipientCount: Number(record.recipientCount),
    acknowledgedCount: Number(record.acknowledgedCount),
  };
}

export const rowFromStored = (stored: { id: string; doc: AnnouncementDoc; createdAt: Date }): AnnouncementRow => ({
  id: stored.id,
  doc: stored.doc,
  createdAt: stored.createdAt,
  status: stored.doc.status,
  recipientCount: stored.doc.recipientCount,
  acknowledgedCount: stored.doc.acknowledgedCount,
});

import type { AnnouncementDoc } from "@meridian/db";
import { sql, type SQL } from "drizzle-orm";
import { AppError } from "../../platform/errors";

export type AnnouncementStatus = AnnouncementDoc["status"];

/**
 * Every move an announcement's status may make, as data. Acknowledged (everyone acknowledged),
 * expired and cancelled are final. The observation lifecycle copies this shape.
 */
export const ANNOUNCEMENT_TRANSITIONS: Readonly<Record<AnnouncementStatus, readonly AnnouncementStatus[]>> = {
  active: ["acknowledged", "expired", "cancelled"],
  acknowledged: [],
  expired: [],
  cancelled: [],
};

export function canTransition({ from, to }: { from: AnnouncementStatus; to: AnnouncementStatus }): boolean {
  return ANNOUNCEMENT_TRANSITIONS[from].includes(to);
}

/** 409 INVALID_TRANSITION unless `from → to` is allowed. */
export function assertTransition({ from, to }: { from: AnnouncementStatus; to: AnnouncementStatus }): void {
  if (!canTransition({ from, to }))
    throw new AppError("INVALID_TRANSITION", `An announcement that is ${from} cannot ${to === "cancelled" ? "be cancelled" : `become ${to}`}`);
}

/** The statuses an announcement may move to `to` from, for set-based updates (`where status in …`). */
export function statusesMovingTo(to: AnnouncementStatus): AnnouncementStatus[] {
  return (Object.keys(ANNOUNCEMENT_TRANSITIONS) as AnnouncementStatus[]).filter((from) => canTransition({ from, to }));
}

/** `a.status` may move to `to`: the SQL form of the table, for set-based updates. */
export function mayMoveTo({ to, column = sql`status` }: { to: AnnouncementStatus; column?: SQL }): SQL {
  return sql`${column} in (${sql.join(
    statusesMovingTo(to).map((from) => sql`${from}`),
    sql`, `,
  )})`;
}

import type { HonoRequest } from "hono";
import { acknowledgmentSchema, announcementSchema, cancelAnnouncementSchema, MAX_SHOWING_ANNOUNCEMENTS } from "@meridian/domain/announcements";
import { authedErrors, conflict, problemResponseFor } from "../responses";

export const tags = ["Announcements"];

export const lifecycle =
  "Recipients are enabled accounts only: a disabled one could never acknowledge (targeting one by id reaches nobody). " +
  "Status: active → acknowledged when every recipient has acknowledged; active → expired once " +
  "`expiresAt` has passed (evaluated on every read and every minute by a job); active → " +
  "cancelled with a reason. Any other move is 409 INVALID_TRANSITION. Email recipients " +
  "(`email`, `both`) are acknowledged at creation, or when a scheduled announcement starts " +
  "(until then it can be cancelled); the creator, when a recipient, at creation.";

export const showingLimit =
  `At most ${MAX_SHOWING_ANNOUNCEMENTS} show at once, active or acknowledged by everyone: a creation past that sets the expiry ` +
  "of the oldest acknowledged ones to that moment, so they stop showing (their status stays acknowledged).";

export const retention =
  "An announcement that ended (cancelled, or past its `expiresAt`) more than `ANNOUNCEMENTS_KEEP_DAYS` ago (365 unless set) " +
  "leaves the list with its recipients, removed by a daily job; one without an expiry that was not cancelled stays.";

/** Documented as `{reason}`, but read leniently: a DELETE without a body is a missing reason (400 REASON_REQUIRED), not malformed input. */
export const cancelBody = {
  requestBody: {
    required: false,
    description: "`{reason}`; a missing or blank reason is 400 REASON_REQUIRED",
    content: { "application/json": { schema: cancelAnnouncementSchema } },
  },
  readBody: async (request: HonoRequest) => {
    const body: unknown = await request.json().catch(() => undefined);
    return { reason: body && typeof body === "object" && "reason" in body ? (body as { reason?: string }).reason : undefined };
  },
};

export const cancelled = {
  output: announcementSchema,
  outputDescription: "Cancelled",
  responses: {
    ...authedErrors,
    400: problemResponseFor("No reason (REASON_REQUIRED) or invalid input (VALIDATION_FAILED)"),
    409: conflict("INVALID_TRANSITION: only active announcements can be cancelled"),
  },
};

export const acknowledged = {
  output: acknowledgmentSchema,
  outputDescription: "Acknowledged (again: the first time is kept)",
  responses: {
    ...authedErrors,
    404: problemResponseFor("Not a recipient, or no such announcement (NOT_FOUND)"),
    409: conflict("INVALID_TRANSITION: cancelled, expired or not yet started"),
  },
};

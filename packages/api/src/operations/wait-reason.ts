import { z } from "@hono/zod-openapi";
import { finishLimits, queueBlockCodes } from "@meridian/domain/observations";

/** Why an observation waits, as the queue, the night plan and the forecast give it: one shape, so the three cannot drift apart. */
export const waitReasonFields = {
  code: z.enum(queueBlockCodes),
  until: z
    .string()
    .nullable()
    .describe("ISO 8601, UTC: when the reason ends, when known (for WOULD_NOT_FINISH the next moment it fits whole); never in the past"),
  limit: z.enum(finishLimits).optional().describe("WOULD_NOT_FINISH only: the constraint that holds now but would stop holding before the end of its estimate"),
  at: z.string().optional().describe("WOULD_NOT_FINISH only: when that limit is crossed (ISO 8601, UTC)"),
  highestAltitude: z
    .number()
    .optional()
    .describe(
      "TARGET_NOT_VISIBLE only, when its first target never reaches its minimum altitude (or its maximum airmass) from this site: the " +
        "highest it ever stands, in degrees, refraction included (its culmination); `until` is then null (extension)",
    ),
  observatoryId: z.string().optional().describe("PLANNED_ELSEWHERE only: the observatory the network plan runs it at; `until` is its planned start there"),
  windowInDaylight: z
    .literal(true)
    .optional()
    .describe("NOT_DARK only, when its time window holds no darkness at all (for its twilight): it can never run; `until` is null (extension)"),
};

import { isoDateInput, isoDay } from "@meridian/rules/fields";
import { z } from "zod";
import { fileSchema } from "../observations";
import { opaqueIdSchema, withoutControlCharacters } from "../users";

/** The widest cone `GET /frames` searches, in degrees (contract). */
export const MAX_CONE_RADIUS_DEG = 10;
/** Frames one archive may hold (`POST /frames/archive`). */
export const MAX_ARCHIVE_FRAMES = 200;

const instantSchema = z.union([isoDateInput, isoDay]);
// A query string's number: "" or "abc" is refused rather than read as 0 or NaN.
const degrees = (range: z.ZodNumber) =>
  z
    .union([
      z.number(),
      z
        .string()
        .trim()
        .max(40)
        .regex(/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i, "Must be a number")
        .transform(Number),
    ])
    .pipe(range);

/** `GET /frames`' filters, as the query string gives them (REST and tRPC alike); paging is the operation's. */
export const frameSearchFields = {
  ra: degrees(z.number().min(0).max(360)).optional().describe("The cone's centre: right ascension, J2000 degrees (0 to 360); with `dec` and `radius`"),
  dec: degrees(z.number().min(-90).max(90)).optional().describe("The cone's centre: declination, J2000 degrees (−90 to 90); with `ra` and `radius`"),
  radius: degrees(z.number().positive().max(MAX_CONE_RADIUS_DEG))
    .optional()
    .describe(`The cone's radius in degrees (at most ${MAX_CONE_RADIUS_DEG}); with \`ra\` and \`dec\``),
  filter: withoutControlCharacters(z.string().trim().min(1).max(100)).optional().describe("The header's FILTER, compared without regard to case"),
  from: instantSchema.optional().describe("Taken (the header's DATE-OBS) at or after (a date means its start, UTC)"),
  to: instantSchema.optional().describe("Taken (the header's DATE-OBS) before (a date means its start, UTC)"),
  grade: z.enum(["accepted", "rejected"]).optional().describe("Frames graded so"),
  observatoryId: opaqueIdSchema.optional().describe("Frames taken by this observatory (its key uploaded them)"),
  projectId: opaqueIdSchema.optional().describe("Frames of this project's observations"),
};
export type FrameSearchFilter = z.output<z.ZodObject<typeof frameSearchFields>>;

export const framePageSchema = z.object({ items: z.array(fileSchema), nextCursor: z.string().nullable() }).meta({ id: "FramePage" });

export const frameArchiveRequestSchema = z
  .strictObject({
    fileIds: z
      .array(opaqueIdSchema)
      .min(1)
      .max(MAX_ARCHIVE_FRAMES)
      .refine((ids) => new Set(ids).size === ids.length, "Must not name a file twice")
      .describe(`The frames to put in the archive: 1 to ${MAX_ARCHIVE_FRAMES} file ids, each once`),
  })
  .meta({ id: "FrameArchiveRequest" });

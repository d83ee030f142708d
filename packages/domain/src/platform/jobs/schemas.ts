import { jobStatuses } from "@meridian/db";
import { z } from "zod";
import { withoutControlCharacters } from "@meridian/rules/fields";
import { cursorParameterDescription } from "../validation/keyset-cursor";

export const jobViewSchema = z
  .object({
    id: z.string(),
    kind: z
      .string()
      .describe(
        "What the job does, named as the job that does it: `announcement_emails`, `integrity_scan`, `integrity_repair`, " +
          "`backup_create` (`backup` before 2026-11-29, ADR 0043), `backup_verify`, `backup_restore`, `observation_cleanup`",
      ),
    status: z.enum(jobStatuses),
    progress: z.object({ done: z.number().int(), total: z.number().int().nullable(), stage: z.string().nullable() }),
    result: z.unknown().describe("What a completed job produced (for an email fan-out: sent, failed and skipped counts)"),
    error: z.string().nullable(),
    startedBy: z.string().nullable().describe("The user who started it (extension)"),
    startedByName: z.string().nullable().describe("That user's name, as it is now (extension)"),
    subjectId: z.string().nullable().describe("What it works on, such as the announcement (extension)"),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: "Job" });

export const jobListQuerySchema = z.object({
  kind: withoutControlCharacters(z.string().max(100)).optional(),
  status: z.enum(jobStatuses).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: withoutControlCharacters(z.string().max(200)).optional().describe(cursorParameterDescription),
});

export const jobListSchema = z.object({ items: z.array(jobViewSchema), nextCursor: z.string().nullable() }).meta({ id: "JobList" });

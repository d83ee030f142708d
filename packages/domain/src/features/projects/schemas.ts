import { projectStatuses } from "@meridian/db";
import { frameGradingChangeSchema, frameGradingValuesSchema } from "@meridian/rules/frames";
import { z } from "zod";
import { emailSchema, opaqueIdSchema, withoutControlCharacters } from "../users";

export const projectCreateSchema = z
  .strictObject({
    name: withoutControlCharacters(z.string().trim().min(1).max(200)),
    organizationId: opaqueIdSchema.optional(),
  })
  .meta({ id: "ProjectCreate" });

export const projectUpdateSchema = z
  .strictObject({
    name: withoutControlCharacters(z.string().trim().min(1).max(200)).optional(),
    status: z.enum(projectStatuses).optional(),
    frameGrading: frameGradingChangeSchema
      .optional()
      .describe(
        "How its frames are graded: the checks named change, the others stay; `null` switches a check off. " +
          "A change grades the project's analysed frames again from what their analysis measured (no new analysis), in the same write.",
      ),
  })
  .meta({ id: "ProjectUpdate" });

export const projectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(projectStatuses),
    ownerId: z.string(),
    organizationId: z.string().nullable(),
    createdAt: z.string(),
    frameGrading: frameGradingValuesSchema.describe("How its frames are graded; `null` switches a check off"),
    myRole: z.enum(["owner", "admin", "member", "organizationManager", "serverAdmin"]).optional().describe("How the caller relates to the project (extension)"),
  })
  .meta({ id: "Project" });

export const projectMemberSchema = z
  .object({ userId: z.string(), email: z.string(), name: z.string(), role: z.enum(["owner", "admin", "member"]), joinedAt: z.string() })
  .meta({ id: "ProjectMember" });

export const addProjectMemberSchema = z.strictObject({ email: emailSchema, role: z.enum(["admin", "member"]) }).meta({ id: "AddProjectMember" });

export const updateProjectMemberSchema = z.strictObject({ role: z.enum(["admin", "member"]) }).meta({ id: "UpdateProjectMember" });

import { z } from "zod";
import { displayNameSchema, emailSchema, passwordSchema, withoutControlCharacters } from "../users";
import { cursorParameterDescription } from "../../platform/validation/keyset-cursor";

export const changePasswordSchema = z.strictObject({ currentPassword: z.string().min(1).max(256), newPassword: passwordSchema }).meta({ id: "ChangePassword" });
export type ChangePassword = z.infer<typeof changePasswordSchema>;

export const passwordResetRequestSchema = z.strictObject({ email: emailSchema }).meta({ id: "PasswordResetRequest" });
export const passwordResetConfirmSchema = z
  .strictObject({ token: withoutControlCharacters(z.string().min(1).max(200)), newPassword: passwordSchema })
  .meta({ id: "PasswordResetConfirm" });

const sessionSchema = z
  .object({
    id: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().describe("Recorded at most once a minute"),
    userAgent: z.string().nullable(),
    ip: z.string().nullable().describe("The client address it signed in from (behind a trusted proxy, the one the proxy saw); null when unknown"),
    current: z.boolean().describe("True for the session that made this request"),
  })
  .meta({ id: "Session" });
export const sessionListSchema = z.object({ items: z.array(sessionSchema) }).meta({ id: "SessionList" });

export const adminUserSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    roles: z.array(z.string()),
    disabled: z.boolean(),
    createdAt: z.string(),
    lastLoginAt: z.string().nullable(),
  })
  .meta({ id: "AdminUser" });
export type AdminUser = z.infer<typeof adminUserSchema>;

export const adminUserListQuerySchema = z.strictObject({
  q: withoutControlCharacters(z.string().trim().max(200)).optional().describe("Case-insensitive part of the email or name"),
  role: z.enum(["serverAdmin"]).optional().describe("Only the accounts that hold this role, enabled or not (extension to docs/api-contract.md)"),
  status: z
    .enum(["active", "disabled"])
    .optional()
    .describe("Only the accounts that can sign in (`active`) or those a server admin disabled (`disabled`) (extension to docs/api-contract.md)"),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: withoutControlCharacters(z.string().max(200)).optional().describe(cursorParameterDescription),
});
export const adminUserListSchema = z
  .object({
    items: z.array(adminUserSchema),
    nextCursor: z.string().nullable(),
    enabledServerAdmins: z
      .number()
      .int()
      .describe(
        "Enabled server administrators on the whole server, whatever `q`, the filters and the page: while there is one, taking its serverAdmin " +
          "role away or disabling it answers 409 LAST_SERVER_ADMIN",
      ),
  })
  .meta({ id: "AdminUserList" });

export const adminUserUpdateSchema = z
  .strictObject({
    disabled: z.boolean().optional(),
    roles: z
      .array(z.enum(["serverAdmin"]))
      .max(1)
      .optional()
      .describe('The complete list of roles: `["serverAdmin"]` grants, `[]` revokes'),
    name: displayNameSchema.optional().describe("The account's display name, checked as at signup (extension to docs/api-contract.md)"),
    email: emailSchema
      .optional()
      .describe(
        "The account's sign-in address, checked as at signup; compared case-insensitively, another account's is 409 EMAIL_TAKEN " +
          "(extension to docs/api-contract.md)",
      ),
  })
  .meta({ id: "AdminUserUpdate" });
export type AdminUserUpdate = z.infer<typeof adminUserUpdateSchema>;

export const emailChangeRequestSchema = z
  .strictObject({
    email: emailSchema.describe("The new sign-in address; compared case-insensitively"),
    currentPassword: z.string().min(1).max(256),
  })
  .meta({ id: "EmailChangeRequest" });
export type EmailChangeRequest = z.infer<typeof emailChangeRequestSchema>;
export const emailChangeConfirmSchema = z.strictObject({ token: withoutControlCharacters(z.string().min(1).max(200)) }).meta({ id: "EmailChangeConfirm" });
export const pendingEmailChangeSchema = z
  .object({
    pendingEmail: z.string().nullable().describe("The address waiting for its link to be opened; null when no change is pending"),
    expiresAt: z.string().nullable().describe("When that link stops working; null when no change is pending"),
  })
  .meta({ id: "PendingEmailChange" });

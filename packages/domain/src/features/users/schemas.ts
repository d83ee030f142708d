import { notificationPreferencesSchema } from "@meridian/db";
import { timeDisplayChoices } from "@meridian/rules";
import { withoutControlCharacters } from "@meridian/rules/fields";
import { z } from "zod";

export { noControlCharacters, withoutControlCharacters } from "@meridian/rules/fields";

export const emailSchema = z.string().trim().max(254).pipe(z.email());

export const passwordSchema = z.string().min(8).max(256);

// The platform's keyset cursors check ids with it too.
export { opaqueIdSchema } from "../../platform/validation/opaque-id";

// Control characters in display names break emails and tables; letters of every script are fine.
export const displayNameSchema = withoutControlCharacters(z.string().trim().min(1).max(100));

export const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    roles: z.array(z.string()),
    avatarUrl: z.string().nullable().describe("Path of the avatar image, null when the user has none (extension to docs/api-contract.md)"),
    createdAt: z.string(),
  })
  .meta({ id: "User" });
export type PublicUser = z.infer<typeof userSchema>;

/** The masked Pushover settings, as the profile and `PUT /api/v1/user/pushover` show them. */
export const pushoverViewSchema = z
  .object({
    configured: z.boolean().describe("Whether the caller has a Pushover user key"),
    userKeyHint: z.string().nullable().describe("The key's last characters"),
    devices: z.array(z.string()),
    available: z.boolean().optional().describe("Whether this server can send Pushover messages: false when it has no application token (PUSH_APP_TOKEN)"),
    notice: z.string().optional().describe("When `available` is false, a sentence saying so, to show the user"),
  })
  .meta({ id: "PushoverSettings" });
export type PushoverView = z.infer<typeof pushoverViewSchema>;

export const profileSchema = z
  .object({
    name: z.string(),
    email: z.string(),
    avatarUrl: z.string().nullable(),
    notificationPreferences: notificationPreferencesSchema,
    pushover: pushoverViewSchema.describe("Pushover-style push: whether a user key is set, shown masked, and whether this server can send to Pushover at all"),
    timeDisplay: z
      .enum(timeDisplayChoices)
      .optional()
      .describe(
        "Which zone the web interface shows times in: `observatory` (observatory times in the observatory's zone, the rest in the " +
          "browser's), `browser` or `utc`; absent until the user chooses, which means `observatory` (extension)",
      ),
  })
  .meta({ id: "Profile" });

export const profileUpdateSchema = z
  .strictObject({
    name: displayNameSchema.optional(),
    notificationPreferences: notificationPreferencesSchema.partial().strict().optional(),
    timeDisplay: z.enum(timeDisplayChoices).optional(),
  })
  .meta({ id: "ProfileUpdate" });
export type ProfileUpdate = z.infer<typeof profileUpdateSchema>;

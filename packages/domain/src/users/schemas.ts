import { notificationPreferencesSchema } from "@meridian/db";
import { z } from "zod";

export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: "must be a valid email address" }));

export const passwordSchema = z.string().min(8, "must have at least 8 characters").max(256, "must have at most 256 characters");

// Control characters in display names break emails and tables; letters of every script are fine.
export const displayNameSchema = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must have at most 100 characters")
  .regex(/^[^\p{Cc}\p{Cs}]*$/u, "must not contain control characters");

export const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    roles: z.array(z.string()),
    avatarUrl: z.string().nullable().describe("Path of the avatar image, null when the user has none (extension to the contract)"),
    createdAt: z.string(),
  })
  .meta({ id: "User" });
export type PublicUser = z.infer<typeof userSchema>;

export const profileSchema = z
  .object({
    name: z.string(),
    email: z.string(),
    avatarUrl: z.string().nullable(),
    notificationPreferences: notificationPreferencesSchema,
  })
  .meta({ id: "Profile" });

export const profileUpdateSchema = z
  .strictObject({
    name: displayNameSchema.optional(),
    notificationPreferences: notificationPreferencesSchema.partial().strict().optional(),
  })
  .meta({ id: "ProfileUpdate" });
export type ProfileUpdate = z.infer<typeof profileUpdateSchema>;

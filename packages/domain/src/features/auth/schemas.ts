import { isoDateInput } from "@meridian/rules/fields";
import { z } from "zod";
import { invitationTokenSchema } from "../invitations";
import { displayNameSchema, emailSchema, passwordSchema, userSchema, withoutControlCharacters } from "../users";

export const signupInputSchema = z
  .strictObject({
    email: emailSchema,
    password: passwordSchema,
    name: displayNameSchema,
    invitationToken: invitationTokenSchema.optional().meta({
      description:
        "The token of an invitation link (`/app/invitations/{token}`) to the same address. Checked whenever given; " +
        "with it the invited address may sign up even when SIGNUP_ENABLED is false. The account joins on acceptance, as the contract says.",
    }),
  })
  .meta({ id: "SignupInput" });
export type SignupInput = z.infer<typeof signupInputSchema>;

export const loginInputSchema = z
  .strictObject({
    email: withoutControlCharacters(z.string().trim().min(1).max(254)),
    password: z.string().min(1).max(256),
  })
  .meta({ id: "LoginInput" });
export type LoginInput = z.infer<typeof loginInputSchema>;

export const authResultSchema = z.object({ user: userSchema, token: z.string() }).meta({ id: "AuthResult" });

/** How far ahead a key's expiry may lie: a year, leap day included. */
export const MAX_API_KEY_LIFETIME_DAYS = 366;

export const apiKeyCreateSchema = z
  .strictObject({
    name: withoutControlCharacters(z.string().trim().min(1).max(100)),
    expiresAt: isoDateInput
      .nullable()
      .optional()
      .describe(`When the key stops working: in the future, at most ${MAX_API_KEY_LIFETIME_DAYS} days ahead. Null or absent: it never expires`),
  })
  .meta({ id: "ApiKeyCreate" });

const keyExpiresAt = z.string().nullable().describe("When the key stops working; null: never");

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    expiresAt: keyExpiresAt,
    expired: z.boolean().describe("Its expiry has passed: it authenticates nobody, and stays listed until revoked"),
  })
  .meta({ id: "ApiKey" });

export const createdApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    key: z.string().describe("Shown once; only its hash is stored"),
    createdAt: z.string(),
    expiresAt: keyExpiresAt,
  })
  .meta({ id: "CreatedApiKey" });

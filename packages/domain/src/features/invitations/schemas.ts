import { invitationKinds } from "@meridian/db";
import { z } from "zod";
import { organizationPermissionsInputSchema, organizationPermissionsOutputSchema } from "../organizations";
import { observatoryPermissionsInputSchema } from "../observatories";
import { emailSchema } from "../users";

export const organizationInvitationCreateSchema = z
  .strictObject({ email: emailSchema, permissions: organizationPermissionsInputSchema.optional() })
  .meta({ id: "OrganizationInvitationCreate" });
export const observatoryInvitationCreateSchema = z
  .strictObject({ email: emailSchema, permissions: observatoryPermissionsInputSchema.optional() })
  .meta({ id: "ObservatoryInvitationCreate" });
export const projectInvitationCreateSchema = z.strictObject({ email: emailSchema, role: z.enum(["admin", "member"]) }).meta({ id: "ProjectInvitationCreate" });

const invitationFields = {
  id: z.string(),
  email: z.string(),
  expiresAt: z.string().describe("Seven days after it was sent; a resend starts a new week"),
  createdAt: z.string(),
  invitedBy: z.object({ id: z.string(), name: z.string() }),
  expired: z.boolean().describe("Past expiresAt and never accepted: resend it or revoke it"),
};
const permissionsOutput = z.record(z.string(), z.boolean());

export const organizationInvitationSchema = z
  .object({ ...invitationFields, permissions: organizationPermissionsOutputSchema })
  .meta({ id: "OrganizationInvitation" });
export const observatoryInvitationSchema = z.object({ ...invitationFields, permissions: permissionsOutput }).meta({ id: "ObservatoryInvitation" });
export const projectInvitationSchema = z.object({ ...invitationFields, role: z.enum(["admin", "member"]) }).meta({ id: "ProjectInvitation" });

export const invitationTokenSchema = z.string().trim().min(1).max(200);
export const acceptInvitationSchema = z.strictObject({ token: invitationTokenSchema }).meta({ id: "AcceptInvitation" });
export const acceptedInvitationSchema = z.object({ kind: z.enum(invitationKinds), id: z.string() }).meta({ id: "AcceptedInvitation" });

export const invitationPreviewSchema = z
  .object({
    kind: z.enum(invitationKinds),
    id: z.string(),
    name: z.string().describe("The organization's, observatory's or project's name"),
    email: z.string().describe("The invited address: accepting needs an account with it"),
    invitedBy: z.string(),
    expiresAt: z.string(),
    accountExists: z.boolean().describe("Whether an account has the invited address (sign in) or not (sign up)"),
  })
  .meta({ id: "InvitationPreview" });

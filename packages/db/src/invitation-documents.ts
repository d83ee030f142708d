import { z } from "zod";
import { isoDate, observatoryPermissionsSchema, organizationPermissionsSchema } from "./documents";

export const invitationKinds = ["organization", "observatory", "project"] as const;
export type InvitationKind = (typeof invitationKinds)[number];

/** What the invited person gets on acceptance, by the kind of thing they are invited to. */
export const invitationGrantSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("organization"), permissions: organizationPermissionsSchema }),
  z.object({ kind: z.literal("observatory"), permissions: observatoryPermissionsSchema }),
  z.object({ kind: z.literal("project"), role: z.enum(["admin", "member"]) }),
]);
export type InvitationGrant = z.infer<typeof invitationGrantSchema>;

/**
 * An emailed, single-use invitation. Only the token's hash is kept. `status` stays after the
 * link stops working (accepted, revoked, replaced by a newer one) so that the link can say why.
 */
export const invitationDocSchema = z.object({
  scopeId: z.string(),
  email: z.string(),
  grant: invitationGrantSchema,
  tokenHash: z.string(),
  expiresAt: isoDate,
  status: z.enum(["pending", "accepted", "revoked", "replaced"]),
  invitedBy: z.object({ id: z.string(), name: z.string() }),
  acceptedBy: z.string().nullable(),
  endedAt: isoDate.nullable(),
});
export type InvitationDoc = z.infer<typeof invitationDocSchema>;

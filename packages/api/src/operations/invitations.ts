import { z } from "@hono/zod-openapi";
import {
  acceptedInvitationSchema,
  acceptInvitation,
  acceptInvitationSchema,
  createInvitation,
  invitationPreviewSchema,
  invitationTokenSchema,
  listInvitations,
  observatoryInvitationCreateSchema,
  observatoryInvitationSchema,
  organizationInvitationCreateSchema,
  organizationInvitationSchema,
  previewInvitation,
  projectInvitationCreateSchema,
  projectInvitationSchema,
  revokeInvitation,
  type InvitationGrant,
  type InvitationKind,
} from "@meridian/domain/invitations";
import { NO_ORGANIZATION_PERMISSIONS } from "@meridian/domain/organizations";
import { NO_OBSERVATORY_PERMISSIONS } from "@meridian/domain/permissions";
import { defineOperation } from "./define-operation";
import { authedErrors, conflict, errorResponses, idParam, problemResponseFor, wholeList } from "./responses";

const tags = ["Invitations"];
export const invitationNotFound = problemResponseFor("No such invitation (NOT_FOUND)");
export const invitationLinkGone = problemResponseFor("The link no longer works: expired, used, revoked or replaced by a newer invitation (INVITATION_EXPIRED)");

/** How one kind of invitation looks on the wire: where it lives, who sends it, what it grants. */
interface InvitationFace<C extends z.ZodObject, O extends z.ZodObject> {
  title: string;
  base: string;
  managers: string;
  create: C;
  output: O;
  grant(input: z.output<C>): InvitationGrant;
}

const params = z.object({ id: idParam });

/** The three operations every kind of invitation has, defined once and parameterised by kind. */
function scopedInvitationOperations<C extends z.ZodObject, O extends z.ZodObject>(kind: InvitationKind, face: InvitationFace<C, O>) {
  const { output } = face;
  type Output = z.output<O>;
  return {
    list: defineOperation({
      operationId: `list${face.title}Invitations`,
      access: "signed-in",
      tags,
      summary: `Pending invitations to the ${kind} (${face.managers})`,
      description: "Newest first; an expired one stays listed, flagged `expired`, until it is resent or revoked.",
      method: "get",
      path: `${face.base}/invitations`,
      status: 200,
      params,
      output: wholeList(output),
      outputDescription: "Pending invitations",
      responses: authedErrors,
      handle: async ({ ctx, actor, input }) =>
        (await listInvitations({ deps: ctx.deps, actor: actor!, kind, scopeId: input.id })) as { items: Output[]; nextCursor: null },
    }),
    create: defineOperation({
      operationId: `create${face.title}Invitation`,
      access: "signed-in",
      tags,
      summary: `Invite an email address to the ${kind} (${face.managers})`,
      description:
        "Emails a single-use link, `/app/invitations/{token}`, valid for 7 days; the address need not have an account (signing up through the link " +
        "joins on acceptance). A second invitation to the same address replaces the first, whose link stops working: this is how one is resent. " +
        "Rate limited per scope (INVITATIONS_PER_SCOPE_PER_HOUR) and per address (5 an hour).",
      method: "post",
      path: `${face.base}/invitations`,
      status: 201,
      params,
      body: face.create,
      bodyKey: "invitation",
      output,
      outputDescription: "Sent",
      responses: { ...authedErrors, 409: conflict("ALREADY_MEMBER"), 429: errorResponses[429] },
      handle: async ({ ctx, actor, input }) => {
        const body = input.invitation as z.output<C> & { email: string };
        const grant = face.grant(body);
        return (await createInvitation({
          deps: ctx.deps,
          actor: actor!,
          kind,
          scopeId: input.id,
          email: body.email,
          grant,
          requestOrigin: ctx.linkOrigin,
        })) as Output;
      },
    }),
    revoke: defineOperation({
      operationId: `revoke${face.title}Invitation`,
      access: "signed-in",
      tags,
      summary: `Revoke a pending invitation to the ${kind} (${face.managers})`,
      description: "The link stops working (410 INVITATION_EXPIRED).",
      method: "delete",
      path: `${face.base}/invitations/{invitationId}`,
      status: 204,
      params: z.object({ id: idParam, invitationId: idParam }),
      outputDescription: "Revoked",
      responses: authedErrors,
      handle: ({ ctx, actor, input }) => revokeInvitation({ deps: ctx.deps, actor: actor!, kind, scopeId: input.id, invitationId: input.invitationId }),
    }),
  };
}

const organization = scopedInvitationOperations("organization", {
  title: "Organization",
  base: "/organizations/{id}",
  managers: "members with can_manage_members (and the owner)",
  create: organizationInvitationCreateSchema,
  output: organizationInvitationSchema,
  grant: (input) => ({ kind: "organization", permissions: { ...NO_ORGANIZATION_PERMISSIONS, ...input.permissions } }),
});
const observatory = scopedInvitationOperations("observatory", {
  title: "Observatory",
  base: "/observatories/{id}",
  managers: "the owner and members with can_admin",
  create: observatoryInvitationCreateSchema,
  output: observatoryInvitationSchema,
  grant: (input) => ({ kind: "observatory", permissions: { ...NO_OBSERVATORY_PERMISSIONS, can_view: true, ...input.permissions } }),
});
const project = scopedInvitationOperations("project", {
  title: "Project",
  base: "/projects/{id}",
  managers: "the owner and project admins",
  create: projectInvitationCreateSchema,
  output: projectInvitationSchema,
  grant: (input) => ({ kind: "project", role: input.role }),
});

export const invitationOperations = {
  organizationList: organization.list,
  organizationCreate: organization.create,
  organizationRevoke: organization.revoke,
  observatoryList: observatory.list,
  observatoryCreate: observatory.create,
  observatoryRevoke: observatory.revoke,
  projectList: project.list,
  projectCreate: project.create,
  projectRevoke: project.revoke,
  preview: defineOperation({
    operationId: "previewInvitation",
    access: "public",
    tags,
    summary: "What an invitation link is for, before signing in",
    description:
      "The token is the secret: whoever holds the link sees the invited address, what it is for and who sent it, and whether an account has " +
      "the address (sign in) or not (sign up). Not in the contract; the invitation page needs it.",
    method: "get",
    path: "/api/v1/invitations/{token}",
    status: 200,
    params: z.object({ token: invitationTokenSchema }),
    output: invitationPreviewSchema,
    outputDescription: "The invitation",
    responses: { 400: errorResponses[400], 404: invitationNotFound, 410: invitationLinkGone },
    handle: ({ ctx, input }) => previewInvitation({ deps: ctx.deps, token: input.token }),
  }),
  accept: defineOperation({
    operationId: "acceptInvitation",
    access: "signed-in",
    tags,
    summary: "Accept an invitation: the signed-in account joins",
    description:
      "The account's email must be the invited one. The token works once; an account that already belongs uses it up and is told where. " +
      "Joining is refused with 409 CONFLICT, and the link keeps working, when the scope or the account is at a membership cap " +
      "(members of an organization, observatory or project; organizations or projects one account belongs to: see the additions).",
    method: "post",
    path: "/api/v1/invitations/accept",
    status: 200,
    body: acceptInvitationSchema,
    output: acceptedInvitationSchema,
    outputDescription: "Joined: where to go",
    responses: {
      ...authedErrors,
      403: problemResponseFor("The account's email is not the invited address (INVITATION_EMAIL_MISMATCH)"),
      404: invitationNotFound,
      409: conflict("CONFLICT when joining would pass a membership cap"),
      410: invitationLinkGone,
    },
    handle: ({ ctx, actor, input }) => acceptInvitation({ deps: ctx.deps, actor, token: input.token }),
  }),
};

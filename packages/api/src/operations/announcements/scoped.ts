import { z } from "@hono/zod-openapi";
import {
  acknowledgeAnnouncement,
  announcementListSchema,
  announcementSchema,
  cancelAnnouncement,
  createScopedAnnouncement,
  getAnnouncementRecipients,
  listQuerySchema,
  listScopeActiveAnnouncements,
  listScopeAnnouncementHistory,
  previewScopedRecipients,
  recipientCountSchema,
  recipientsQuerySchema,
  recipientsViewSchema,
  scopedAnnouncementCreateSchema,
  type ScopedKind,
} from "@meridian/domain";
import { defineOperation } from "../define-operation";
import { authedErrors, idParam, problemResponseFor } from "../responses";
import { acknowledged, cancelBody, cancelled, lifecycle, tags } from "./shared";

const senders: Record<ScopedKind, string> = {
  observatory: "the observatory's owner or a member with can_admin",
  organization: "the organization's owner or a member with can_manage_members or can_manage_observatories",
  project: "the project's owner or a project admin",
};
const names: Record<ScopedKind, string> = { observatory: "Observatory", organization: "Organization", project: "Project" };

/**
 * The contract's six paths (plus a recipient preview) under /observatories, /organizations or
 * /projects: REST only, with an operationId per scope. The SPA reaches the same domain functions
 * through the scope-generic procedures (procedures.ts).
 */
export function scopedAnnouncementOperations(scope: ScopedKind, prefix: string) {
  const params = z.object({ id: idParam });
  const itemParams = z.object({ id: idParam, motdId: idParam });
  const who = `Senders: ${senders[scope]}; server admins everywhere.`;
  const name = names[scope];
  const ref = (scopeId: string) => ({ scope, scopeId });
  return [
    defineOperation({
      operationId: `create${name}Announcement`,
      access: "signed-in",
      tags,
      summary: `Create a ${scope} announcement (senders)`,
      description: `Recipients: everyone with access to the ${scope}, resolved now. ${who} ${lifecycle}`,
      method: "post",
      path: `/${prefix}/{id}/motd`,
      status: 201,
      params,
      body: scopedAnnouncementCreateSchema,
      bodyKey: "announcement",
      output: announcementSchema,
      outputDescription: "Created",
      responses: { ...authedErrors, 400: problemResponseFor("Invalid input (VALIDATION_FAILED) or NO_RECIPIENTS") },
      trpc: false,
      handle: ({ ctx, actor, input }) => createScopedAnnouncement({ deps: ctx.deps, actor, ref: ref(input.id), input: input.announcement }),
    }),
    defineOperation({
      operationId: `list${name}Announcements`,
      access: "signed-in",
      tags,
      summary: `The ${scope}'s announcements showing now (anyone who can see the ${scope})`,
      description: "Started, not expired, not cancelled; `acknowledgedAt` is yours when you are a recipient.",
      method: "get",
      path: `/${prefix}/{id}/motd`,
      status: 200,
      params,
      output: announcementListSchema,
      outputDescription: "Announcements",
      responses: authedErrors,
      trpc: false,
      handle: ({ ctx, actor, input }) => listScopeActiveAnnouncements({ deps: ctx.deps, actor, ref: ref(input.id) }),
    }),
    defineOperation({
      operationId: `list${name}AnnouncementHistory`,
      access: "signed-in",
      tags,
      summary: `Every announcement of the ${scope}, past included (senders)`,
      description: `\`?status=\` filters. ${who}`,
      method: "get",
      path: `/${prefix}/{id}/motd/history`,
      status: 200,
      params,
      query: listQuerySchema,
      output: announcementListSchema,
      outputDescription: "Announcements",
      responses: authedErrors,
      trpc: false,
      handle: ({ ctx, actor, input }) => {
        const { id, ...query } = input;
        return listScopeAnnouncementHistory({ deps: ctx.deps, actor, ref: ref(id), query });
      },
    }),
    defineOperation({
      operationId: `preview${name}AnnouncementRecipients`,
      access: "signed-in",
      tags,
      summary: "How many users an announcement would reach now (extension; senders)",
      method: "get",
      path: `/${prefix}/{id}/motd/preview`,
      status: 200,
      params,
      output: recipientCountSchema,
      outputDescription: "Recipient count",
      responses: authedErrors,
      trpc: false,
      handle: ({ ctx, actor, input }) => previewScopedRecipients({ deps: ctx.deps, actor, ref: ref(input.id) }),
    }),
    defineOperation({
      operationId: `cancel${name}Announcement`,
      access: "signed-in",
      tags,
      summary: "Cancel with a reason (senders)",
      description: who,
      method: "delete",
      path: `/${prefix}/{id}/motd/{motdId}`,
      status: 200,
      params: itemParams,
      ...cancelBody,
      ...cancelled,
      trpc: false,
      handle: ({ ctx, actor, input }) =>
        cancelAnnouncement({ deps: ctx.deps, actor, ref: ref(input.id), announcementId: input.motdId, reason: (input as { reason?: string }).reason }),
    }),
    defineOperation({
      operationId: `acknowledge${name}Announcement`,
      access: "signed-in",
      tags,
      summary: "Acknowledge for yourself (recipients)",
      method: "post",
      path: `/${prefix}/{id}/motd/{motdId}/acknowledge`,
      status: 200,
      params: itemParams,
      ...acknowledged,
      trpc: false,
      handle: ({ ctx, actor, input }) => acknowledgeAnnouncement({ deps: ctx.deps, actor, ref: ref(input.id), announcementId: input.motdId }),
    }),
    defineOperation({
      operationId: `list${name}AnnouncementRecipients`,
      access: "signed-in",
      tags,
      summary: "Recipients with delivery and acknowledgment (senders)",
      description: `Same shape and parameters as the system view. ${who}`,
      method: "get",
      path: `/${prefix}/{id}/motd/{motdId}/recipients`,
      status: 200,
      params: itemParams,
      query: recipientsQuerySchema,
      output: recipientsViewSchema,
      outputDescription: "Recipients",
      responses: authedErrors,
      trpc: false,
      handle: ({ ctx, actor, input }) => {
        const { id, motdId, ...query } = input;
        return getAnnouncementRecipients({ deps: ctx.deps, actor, ref: ref(id), announcementId: motdId, query });
      },
    }),
  ];
}

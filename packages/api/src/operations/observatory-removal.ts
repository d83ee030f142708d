import { z } from "@hono/zod-openapi";
import {
  listObservatoryNames,
  observatoryNamesQuerySchema,
  observatoryNamesSchema,
  OBSERVATORY_REMOVED_REASON,
  removeObservatory,
} from "@meridian/domain/observatories";
import { defineOperation } from "./define-operation";
import { authedErrors, conflict, idParam } from "./responses";

const tags = ["Observatories"];

/** Removing an observatory, and the names its observations still show (tRPC `observatories.*`). */
export const observatoryRemovalOperations = {
  remove: defineOperation({
    operationId: "removeObservatory",
    access: "signed-in",
    tags,
    summary: "Remove an observatory (owner, can_manage_observatories of its organization, or a server admin)",
    description:
      "409 OBSERVATORY_BUSY while it holds an observation (assigned, in progress, suspended or acquisition complete). Its pending and paused " +
      `observations are cancelled with the reason "${OBSERVATORY_REMOVED_REASON}" (one with candidateObservatoryIds only when no other ` +
      "candidate is left: otherwise it waits for those), its keys stop working and its plugin connection is " +
      "closed, its active announcements are cancelled and its acknowledged ones stop showing (their expiry set to that moment). " +
      "It leaves every list, and every route of its own then answers 404 but its history " +
      "(GET /observatories/{id}/history), which with its observations, their history and files stays readable to those who could read them.",
    method: "delete",
    path: "/observatories/{id}",
    status: 204,
    params: z.object({ id: idParam }),
    outputDescription: "Removed",
    responses: { ...authedErrors, 409: conflict("OBSERVATORY_BUSY") },
    handle: ({ ctx, actor, input }) => removeObservatory({ deps: ctx.deps, actor, observatoryId: input.id }),
  }),
  names: defineOperation({
    operationId: "listObservatoryNames",
    access: "signed-in",
    tags,
    summary: "Names of observatories the caller can view, removed ones included (for showing observations)",
    method: "get",
    query: observatoryNamesQuerySchema,
    output: observatoryNamesSchema,
    handle: ({ ctx, actor, input }) => listObservatoryNames({ deps: ctx.deps, actor, ids: input.ids }),
  }),
};

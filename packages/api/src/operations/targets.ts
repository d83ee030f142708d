import {
  resolveTarget,
  searchTargets,
  targetMatchSchema,
  targetResolveQuerySchema,
  targetSearchQuerySchema,
  targetSearchResultSchema,
} from "@meridian/domain/targets";
import { defineOperation } from "./define-operation";
import { errorResponses, problemResponseFor } from "./responses";

const tags = ["Targets"];
const refusals = { 400: errorResponses[400], 401: errorResponses[401], 403: problemResponseFor("Not allowed (CROSS_ORIGIN_REQUEST)") };
const catalogNote =
  "The offline catalog holds Messier, NGC and IC (OpenNGC) and its addendum, and the IAU-named, Bayer and Flamsteed stars " +
  "(d3-celestial). Names compare without case, spaces, punctuation or leading zeros: `M31`, `m 31`, `Messier 31`, `NGC0224` " +
  "and `Andromeda Galaxy` are one object. `name` is the catalog's spelling of the name that matched, `designation` the " +
  "object's primary designation (Messier, else NGC, else IC, else its proper or catalog name).";

/** The target catalog for the submission wizard (tRPC `targets.*`). */
export const targetOperations = {
  resolve: defineOperation({
    operationId: "resolveTarget",
    access: "signed-in",
    tags,
    summary: "Position of a named object (J2000, degrees)",
    description: `${catalogNote} An unknown name is 404 TARGET_NOT_FOUND.`,
    method: "get",
    path: "/targets/resolve",
    status: 200,
    query: targetResolveQuerySchema,
    output: targetMatchSchema,
    outputDescription: "The object",
    responses: { ...refusals, 404: problemResponseFor("No object of that name in the catalog (TARGET_NOT_FOUND)") },
    handle: ({ input }) => resolveTarget({ name: input.name }),
  }),
  search: defineOperation({
    operationId: "searchTargets",
    access: "signed-in",
    tags,
    summary: "Objects whose names match, for autocomplete (at most 20)",
    description:
      `${catalogNote} Exact names first, then names starting with \`q\`, then names with a later word starting with it; ` +
      "within each, Messier before NGC before IC before the rest, shorter names first. Each object appears once, under its best name.",
    method: "get",
    path: "/targets/search",
    status: 200,
    query: targetSearchQuerySchema,
    output: targetSearchResultSchema,
    outputDescription: "Matches, best first",
    responses: refusals,
    handle: ({ input }) => searchTargets({ q: input.q }),
  }),
};

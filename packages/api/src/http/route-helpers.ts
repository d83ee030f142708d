import { z } from "@hono/zod-openapi";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse, problemResponseFor } from "./openapi-shared";

export const idParam = z.string().min(1).max(100);
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).optional(),
  cursor: z.string().min(1).max(200).optional(),
});

const refusals = {
  401: errorResponses[401],
  403: problemResponseFor("Not allowed (FORBIDDEN, CROSS_ORIGIN_REQUEST)"),
  404: problemResponseFor("Not found, or not visible to the caller (NOT_FOUND)"),
};

/** Responses and security every authenticated route shares; callers add their own 2xx and 409s. */
export function authedRoute<R extends Record<string | number, unknown>>(responses: R) {
  return { security: bearerSecurity, responses: { 400: errorResponses[400], ...refusals, ...responses } };
}

export const conflict = (codes: string) => problemResponseFor(`Conflict (${codes})`);
export { jsonBody, jsonResponse };

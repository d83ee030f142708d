import { z } from "@hono/zod-openapi";
import { cursorParameterDescription } from "@meridian/domain/platform";
import { opaqueIdSchema, withoutControlCharacters } from "@meridian/domain/users";
import { errorResponses, problemResponseFor } from "../http/openapi-shared";

export { errorResponses, problemResponseFor };

/** What every signed-in operation may answer besides its own success and conflicts. */
export const authedErrors = {
  400: errorResponses[400],
  401: errorResponses[401],
  403: problemResponseFor("Not allowed (FORBIDDEN, CROSS_ORIGIN_REQUEST)"),
  404: problemResponseFor("Not found, or not visible to the caller (NOT_FOUND)"),
};

export const conflict = (codes: string) => problemResponseFor(`Conflict (${codes})`);

/**
 * Path ids. Control characters are refused here rather than by each face: REST refuses NUL in
 * any URL anyway, but a tRPC input is JSON and PostgreSQL text cannot hold NUL.
 */
export const idParam = opaqueIdSchema;
export const opaqueIdParam = opaqueIdSchema;

/** Cursor paging as docs/api-contract.md gives it: `limit` (default 50, at most 200) and `cursor`. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).optional(),
  cursor: withoutControlCharacters(z.string().min(1).max(200)).optional().describe(cursorParameterDescription),
});

/** `{items, nextCursor: null}`: a small bounded list returned whole. */
export const wholeList = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.null() });

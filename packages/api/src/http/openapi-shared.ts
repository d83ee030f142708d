import { z } from "@hono/zod-openapi";

const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().describe("Stable UPPER_SNAKE error code"),
    instance: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi("Problem");

const problem = (description: string) => ({ description, content: { "application/problem+json": { schema: problemSchema } } });

/** Standard error responses, added to each route so the document lists what a client must handle. */
export const errorResponses = {
  400: problem("Invalid input (VALIDATION_FAILED)"),
  401: problem("Missing or invalid credentials (UNAUTHENTICATED)"),
  403: problem("Not allowed (FORBIDDEN, CROSS_ORIGIN_REQUEST)"),
  429: problem("Rate limited (RATE_LIMITED), see Retry-After"),
} as const;

export const problemResponseFor = problem;

export const jsonBody = <T extends z.ZodType>(schema: T, description = "JSON body") => ({
  required: true,
  description,
  content: { "application/json": { schema } },
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const bearerSecurity: Array<Record<string, string[]>> = [{ bearer: [] }, { cookie: [] }];

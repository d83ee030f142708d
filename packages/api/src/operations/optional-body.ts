import type { HonoRequest } from "hono";
import { AppError, validationError } from "@meridian/domain/platform";
import type { z } from "zod";

/**
 * For a POST whose JSON body may be left out altogether (a bare POST means "no options"): reads
 * it leniently, validates it when present, and documents it as not required.
 */
export function optionalJsonBody<S extends z.ZodType>(schema: S) {
  return {
    body: schema,
    readBody: async (request: HonoRequest): Promise<z.output<S>> => {
      const text = await request.text();
      if (!text.trim()) return {} as z.output<S>;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new AppError("VALIDATION_FAILED", "The request body is not valid JSON");
      }
      const result = schema.safeParse(parsed);
      if (!result.success) throw validationError({ issues: result.error.issues });
      return result.data;
    },
    requestBody: { required: false, content: { "application/json": { schema } } },
  };
}

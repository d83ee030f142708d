import { isDeepStrictEqual } from "node:util";
import { z } from "zod";

/**
 * Why `body` is not what `schema` declares, or null when it is: it must parse, and parsing must
 * not change it (a field the schema does not declare is stripped by the parse, so it shows here).
 * Compared as JSON, as the client receives it.
 */
export function responseMismatch(schema: z.ZodType, body: unknown): string | null {
  const sent: unknown = typeof body === "string" ? JSON.parse(body) : JSON.parse(JSON.stringify(body));
  const parsed = schema.safeParse(sent);
  if (!parsed.success) return z.prettifyError(parsed.error);
  const declared: unknown = JSON.parse(JSON.stringify(parsed.data));
  if (!isDeepStrictEqual(declared, sent)) return `it holds what the schema does not declare: ${undeclared(sent, declared).slice(0, 10).join(", ")}`;
  return null;
}

/** The paths in `sent` that `declared` lacks or holds otherwise. */
function undeclared(sent: unknown, declared: unknown, path = "body"): string[] {
  if (typeof sent !== "object" || sent === null || typeof declared !== "object" || declared === null) return isDeepStrictEqual(sent, declared) ? [] : [path];
  return Object.keys(sent).flatMap((key) =>
    key in declared ? undeclared((sent as Record<string, unknown>)[key], (declared as Record<string, unknown>)[key], `${path}.${key}`) : [`${path}.${key}`],
  );
}

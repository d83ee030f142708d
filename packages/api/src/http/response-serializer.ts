import { z } from "zod";

/**
 * The body an operation sends as JSON, from its declared output schema: what the handler returned,
 * parsed, so a field the schema does not declare is left out (zod's objects strip unknown keys) on
 * either face. What does not parse (a missing or mistyped field) is a bug, thrown as a plain Error:
 * a logged 500 on both faces, never a 4xx. A value that parses only once sent as JSON (a Date where
 * the schema says a string) is parsed as the client would receive it.
 */
export function serializedThroughSchema<S extends z.ZodType>(operationId: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const sent: unknown = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  const asSent = schema.safeParse(sent);
  if (asSent.success) return asSent.data;
  throw new Error(`The response of ${operationId} does not match its declared output: ${z.prettifyError(asSent.error)}`);
}

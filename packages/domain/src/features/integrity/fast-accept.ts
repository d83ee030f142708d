import Ajv2020 from "ajv/dist/2020";
import { z } from "zod";

/** A check that can only say yes: true means the zod schema accepts the document, false means ask zod. */
export type FastAccept = (doc: unknown) => boolean;

/** zod checks whose JSON Schema form is exactly the same rule (lengths count code points in both). */
const sameRuleChecks = new Set(["min_length", "max_length", "length_equals", "greater_than", "less_than"]);
/** Integer formats, which zod's JSON Schema writes as `integer` with the format's bounds. */
const integerFormats = new Set(["safeint", "int32", "uint32"]);
/** String formats that zod checks with nothing but their pattern, which JSON Schema carries. */
const patternFormats = new Set(["regex", "datetime", "date", "time", "email", "uuid", "guid"]);
/** Types zod writes as JSON Schema that means the same, or that is stricter than zod. */
const sameRuleTypes = new Set([
  "string",
  "number",
  "boolean",
  "null",
  "object",
  "array",
  "tuple",
  "enum",
  "literal",
  "union",
  "intersection",
  "record",
  "nullable",
  "optional",
  "default",
  "prefault",
  "catch",
  "readonly",
  "nonoptional",
  "any",
  "unknown",
  "never",
  "lazy",
]);

interface ZodInternals {
  _zod: { def: CheckDef & { type: string; checks?: Array<{ _zod: { def: CheckDef } }>; keyType?: ZodInternals } };
}
interface CheckDef {
  check?: string;
  format?: string;
  pattern?: RegExp;
  tx?: (value: unknown) => unknown;
}

/**
 * Compiles a JSON Schema validator (Ajv) from a collection's zod schema that accepts a document
 * only when zod would: 0.3 to 2 µs on an observation against zod's 7 to 15, so a full scan runs
 * zod only for the documents that fail, to tell what is wrong with them. zod stays the one definition of a
 * valid document; this is derived from it and refuses to exist (null) when the JSON Schema form
 * could accept something zod refuses: a refinement, a URL, a transform, a flagged regex. A
 * normalising step (`trim`) is kept by accepting only values it leaves unchanged.
 */
export function fastAcceptOf(schema: z.ZodType): FastAccept | null {
  const overwrites: Array<(value: unknown) => unknown> = [];
  let exact = true;
  let jsonSchema: Record<string, unknown>;
  try {
    jsonSchema = z.toJSONSchema(schema, {
      io: "input",
      unrepresentable: "throw",
      override: ({ zodSchema, jsonSchema: node }) => {
        const def = (zodSchema as unknown as ZodInternals)._zod.def;
        if (!sameRuleTypes.has(def.type)) exact = false;
        if (def.type === "record" && def.keyType?._zod.def.type !== "string") exact = false;
        let patterns = 0;
        // A format such as z.iso.datetime() is its own check; others come as a list.
        const rules = [...(def.check ? [def] : []), ...(def.checks ?? []).map((check) => check._zod.def)];
        for (const rule of rules) {
          if (sameRuleChecks.has(rule.check ?? "")) continue;
          if (rule.check === "number_format" && integerFormats.has(rule.format ?? "")) continue;
          if (rule.check === "overwrite" && rule.tx) {
            overwrites.push(rule.tx);
            node["x-unchanged-by"] = overwrites.length - 1;
          } else if (
            rule.check === "string_format" &&
            patternFormats.has(rule.format ?? "") &&
            rule.pattern?.flags === "" &&
            node.pattern === rule.pattern.source
          )
            patterns += 1;
          else exact = false;
        }
        // JSON Schema holds one pattern per value; zod's second one would be lost.
        if (patterns > 1) exact = false;
      },
    }) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!exact) return null;
  // zod tests its patterns without the `u` flag, and formats only through those patterns.
  const ajv = new Ajv2020({ strict: false, strictNumbers: true, unicodeRegExp: false, validateFormats: false, allErrors: false });
  ajv.addKeyword({
    keyword: "x-unchanged-by",
    schemaType: "number",
    // Only strings are normalised; anything else has already failed the node's type.
    type: "string",
    errors: false,
    validate: (index: number, value: unknown) => overwrites[index]!(value) === value,
  });
  const validate = ajv.compile(jsonSchema);
  return (doc) => validate(doc);
}

const compiled = new WeakMap<z.ZodType, FastAccept | null>();

/** The schema's fast check, compiled once per thread (Ajv compiles to a function: milliseconds). */
export function fastAcceptFor(schema: z.ZodType): FastAccept | null {
  if (!compiled.has(schema)) compiled.set(schema, fastAcceptOf(schema));
  return compiled.get(schema)!;
}

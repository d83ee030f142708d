/** The shared rules the SPA may import at run time (no Node, no zod): validation wording and the short-name rule. */
export * from "@meridian/domain/rules";

import { z } from "zod";
import { describe, expect, expectTypeOf, it } from "vitest";
import { defineOperation, Reply } from "./define-operation";
import type { ProcedureOf } from "./trpc-adapter";
import { responseMismatch } from "../http/response-check";

const output = z.object({ id: z.string() });
const base = { operationId: "probe", access: "public" as const, tags: ["Probe"], summary: "A probe", method: "get" as const, path: "/probe", output };

describe("an operation's declared output", () => {
  it("binds what its handler may return (the compiler refuses anything else)", () => {
    defineOperation({ ...base, handle: () => ({ id: "a" }) });
    defineOperation({ ...base, handle: async () => new Reply(202, { started: true }) });
    // @ts-expect-error: a handler that declares `output: {id}` may not return `{totally: 42}`.
    defineOperation({ ...base, handle: () => ({ totally: 42 }) });
    // @ts-expect-error: nor `{id: 42}`.
    defineOperation({ ...base, handle: async () => ({ id: 42 }) });
    expect(true).toBe(true);
  });

  it("gives the tRPC procedure its output type from the schema (and the bodies of its replies)", () => {
    const _operation = defineOperation({ ...base, handle: async ({ input }: { input: unknown }) => (input ? new Reply(202, { jobId: "j" }) : { id: "a" }) });
    type Output = ProcedureOf<typeof _operation>["_def"]["$types"]["output"];
    expectTypeOf<Output>().toEqualTypeOf<{ id: string } | { jobId: string }>();
  });
});

describe("responseMismatch (tests check every REST response with it)", () => {
  it("accepts exactly what the schema declares", () => {
    expect(responseMismatch(output, { id: "a" })).toBeNull();
    expect(responseMismatch(output, JSON.stringify({ id: "a" }))).toBeNull();
  });

  it("names a wrong type and a field the schema does not declare", () => {
    expect(responseMismatch(output, { id: 42 })).toContain("id");
    expect(responseMismatch(z.object({ items: z.array(output) }), { items: [{ id: "a", secret: "x" }] })).toContain("body.items.0.secret");
  });
});

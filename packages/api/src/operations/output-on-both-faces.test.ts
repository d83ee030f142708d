import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z, ZodError } from "zod";
import type { RequestContext } from "../context";
import { createCallerFactory } from "../trpc/init";
import { appRouter } from "../trpc/app-router";
import { defineOperation, Reply, type AnyOperation } from "./define-operation";
import { announcementOperations } from "./announcements";
import { allOperations } from "./index";
import { restAnswer } from "./rest-adapter";
import { proceduresOf, routerOf } from "./trpc-adapter";

// A handler may return more than its operation declares (a stored document, a whole row): neither face sends it.
const leak = { __undeclared: "never sent" };
const mismatch = /does not match its declared output/;

/** What a face made of `answer`: the JSON text it would send, or the mismatch it refused it with. */
function sentOrRefused(make: () => unknown): string {
  try {
    const made = make();
    return typeof made === "string" ? made : JSON.stringify(made);
  } catch (error) {
    expect((error as Error).message).toMatch(mismatch);
    expect(error).not.toBeInstanceOf(ZodError);
    return "refused";
  }
}

type SchemaDef = { type: string; catchall?: { _zod: { def: SchemaDef } }; shape?: Record<string, unknown>; options?: unknown[]; getter?: () => unknown };

/** Where an output schema's objects take keys they do not declare (`catchall`): `never` refuses them, anything else lets them through. */
function catchalls(schema: unknown, path: string, seen = new Set<unknown>()): string[] {
  const def = (schema as { _zod?: { def: SchemaDef } } | undefined)?._zod?.def;
  if (!def || seen.has(schema)) return [];
  seen.add(schema);
  const inner = ["innerType", "element", "in", "out", "left", "right", "valueType"].map((key) => (def as unknown as Record<string, unknown>)[key]);
  return [
    ...(def.type === "object" && def.catchall ? [`${path}: ${def.catchall._zod.def.type}`] : []),
    ...Object.entries(def.shape ?? {}).flatMap(([key, value]) => catchalls(value, `${path}.${key}`, seen)),
    ...inner.flatMap((value) => catchalls(value, path, seen)),
    ...(def.options ?? []).flatMap((option) => catchalls(option, path, seen)),
    ...(def.type === "lazy" && def.getter ? catchalls(def.getter(), path, seen) : []),
  ];
}

type ParsedProcedure = { _def: { output?: (answer: unknown) => unknown } };

describe("every operation's declared output, on both faces", () => {
  // allOperations, and the tRPC procedures of the announcement family it holds by their REST faces.
  const withOutput = [...new Set([...allOperations, ...Object.values(announcementOperations)])].filter((operation) => operation.output);

  it.each(withOutput.map((operation) => [operation.operationId, operation] as const))("%s", (_name, operation: AnyOperation) => {
    if (operation.trpc !== false) {
      const procedure = (proceduresOf({ operation }) as unknown as Record<string, ParsedProcedure>).operation!;
      expect(procedure._def.output, "the tRPC procedure declares an output parser").toBeTypeOf("function");
      expect(sentOrRefused(() => procedure._def.output!(leak))).not.toContain("__undeclared");
      expect(sentOrRefused(() => procedure._def.output!(new Reply(operation.status ?? 200, leak)))).not.toContain("__undeclared");
    }
    if (operation.path) {
      expect(sentOrRefused(() => restAnswer(operation, leak).body)).not.toContain("__undeclared");
      expect(sentOrRefused(() => restAnswer(operation, new Reply(operation.status ?? 200, leak)).body)).not.toContain("__undeclared");
    }
  });

  it("strips what an output does not declare rather than refusing it, but for the strict parts shared with an input", () => {
    const found = withOutput.flatMap((operation) => catchalls(operation.output, operation.operationId));
    // Settings the caller writes as they read them: their input refuses unknown keys, so a stored one cannot hold one.
    expect(found).toEqual([
      "getServerSettings.scanSchedule: never",
      "updateServerSettings.scanSchedule: never",
      "createProject.frameGrading: never",
      "listProjects.items.frameGrading: never",
      "getProject.frameGrading: never",
      "updateProject.frameGrading: never",
    ]);
  });

  it("holds for the one procedure written by hand (auth.me)", () => {
    const me = (appRouter._def.procedures as unknown as Record<string, ParsedProcedure>)["auth.me"]!;
    expect(me._def.output).toBeTypeOf("function");
    expect(sentOrRefused(() => me._def.output!(leak))).not.toContain("__undeclared");
  });
});

describe("a handler that returns a field its output does not declare", () => {
  let answerMissingId = false;
  const probe = defineOperation({
    operationId: "probe",
    access: "public",
    tags: ["Probe"],
    summary: "A probe",
    method: "get",
    path: "/probe",
    output: z.object({ id: z.string(), items: z.array(z.object({ name: z.string() })) }),
    handle: () => (answerMissingId ? ({ secret: "s", items: [] } as never) : { id: "a", secret: "s", items: [{ name: "n", hash: "h" }] }),
  });
  const ctx = { principal: undefined, observatory: undefined, deps: { env: { VALIDATE_RESPONSES: false } } } as unknown as RequestContext;
  const call = createCallerFactory(routerOf({ probe }))(ctx);

  it("sends the declared fields alone over REST and tRPC", async () => {
    const answer = await probe.handle({ ctx, actor: undefined, principal: undefined, observatory: undefined, input: undefined as never });
    expect(JSON.parse(restAnswer(probe, answer).body as string)).toEqual({ id: "a", items: [{ name: "n" }] });
    expect(await call.probe()).toEqual({ id: "a", items: [{ name: "n" }] });
  });

  it("is a server error when a declared field is missing, never a 4xx", async () => {
    expect(() => restAnswer(probe, { secret: "s" })).toThrow(mismatch);
    answerMissingId = true;
    const refused = await call.probe().catch((error: unknown) => error);
    answerMissingId = false;
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe("INTERNAL_SERVER_ERROR");
    expect((refused as TRPCError).cause?.message).toMatch(mismatch);
  });
});

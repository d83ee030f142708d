import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { describe, expect, it } from "vitest";
import type { AppRouter } from "../trpc";
import { summarizeError } from "./errors";

/** A tRPC client whose every request the server refused before tRPC saw it, with this problem+json. */
function clientAnswered(status: number, problem: Record<string, unknown>) {
  const fetch = async () => new Response(JSON.stringify(problem), { status, headers: { "content-type": "application/problem+json", "retry-after": "30" } });
  return createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "http://meridian.test/trpc", fetch })] });
}

async function failureOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

describe("summarizeError", () => {
  it("reads a refusal the server answered as problem+json before tRPC (a restore's 503, a cross-site cookie) by its code and detail", async () => {
    const client = clientAnswered(503, {
      type: "https://meridian.dev/problems/maintenance",
      title: "Service Unavailable",
      status: 503,
      code: "MAINTENANCE",
      detail: "A restore is replacing the server's data; changes are refused until it ends. Try again in a few minutes.",
    });
    const summary = summarizeError(await failureOf(client.user.updateProfile.mutate({ name: "Ada" })));
    expect(summary).toEqual({
      code: "MAINTENANCE",
      message: "A restore is replacing the server's data; changes are refused until it ends. Try again in a few minutes.",
      fieldErrors: {},
    });
  });

  it("keeps the field messages of such a problem", async () => {
    const client = clientAnswered(400, {
      status: 400,
      code: "VALIDATION_FAILED",
      detail: "Check the name",
      errors: [{ path: "name", message: "too long" }],
    });
    const summary = summarizeError(await failureOf(client.user.updateProfile.mutate({ name: "Ada" })));
    expect(summary.code).toBe("VALIDATION_FAILED");
    expect(summary.fieldErrors).toEqual({ name: "Too long" });
  });
});

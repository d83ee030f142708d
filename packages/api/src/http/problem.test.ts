import { AppError } from "@meridian/domain/platform";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { problemBody, problemResponse, toAppError } from "./problem";

describe("toAppError", () => {
  it("keeps an AppError", () => {
    const error = new AppError("EMAIL_TAKEN");
    expect(toAppError(error)).toBe(error);
  });

  it("turns hono's malformed-JSON exception into VALIDATION_FAILED without parser details", () => {
    const error = toAppError(new HTTPException(400, { message: "Malformed JSON in request body" }));
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.message).toBe("The request body is not valid JSON");
  });

  it.each([
    [401, "UNAUTHENTICATED"],
    [413, "PAYLOAD_TOO_LARGE"],
    [415, "UNSUPPORTED_MEDIA_TYPE"],
  ] as const)("maps an HTTPException %i to %s", (status, code) => {
    expect(toAppError(new HTTPException(status)).code).toBe(code);
  });

  const withCode = (code: string, message = `database error ${code}`) => Object.assign(new Error(message), { code });
  it.each([
    ["PostgreSQL refusing more connections", withCode("53300")],
    ["PostgreSQL out of memory", withCode("53200")],
    ["PostgreSQL short of another resource", withCode("53000")],
    ["PostgreSQL starting up", withCode("57P03")],
    ["a connection exception", withCode("08006")],
    ["an unreachable server", withCode("ECONNREFUSED")],
    ["postgres.js giving up on connecting", withCode("CONNECT_TIMEOUT")],
    ["a connection closed under the query", withCode("CONNECTION_CLOSED")],
    ["a driver error wrapped by the ORM", new Error("Failed query", { cause: withCode("53300") })],
  ])("answers %s with 503 SERVICE_UNAVAILABLE and Retry-After, without the driver's words", (_case, original) => {
    const error = toAppError(original);
    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, headers: { "retry-after": "5" } });
    expect(error.message).not.toMatch(/database error|Failed query/);
  });

  it.each([
    ["PostgreSQL's full disk (disk_full)", withCode("53100", "could not extend file"), /^The database has no room left/],
    ["the same wrapped by the ORM", new Error("Failed query", { cause: withCode("53100", "could not extend file") }), /^The database has no room left/],
    ["object storage's 507", Object.assign(new Error("full"), { $metadata: { httpStatusCode: 507 } }), /^Object storage has no room left/],
  ])("answers %s with 507 INSUFFICIENT_STORAGE and Retry-After, without the driver's words", (_case, original, detail) => {
    const error = toAppError(original);
    expect(error).toMatchObject({ code: "INSUFFICIENT_STORAGE", status: 507, headers: { "retry-after": "60" } });
    expect(error.message).toMatch(detail);
    expect(error.message).not.toMatch(/could not extend|Failed query|full/);
  });

  it("keeps other database errors INTERNAL: a unique violation that escaped is a bug, not an outage", () => {
    expect(toAppError(withCode("23505")).code).toBe("INTERNAL");
    expect(toAppError(withCode("42P01")).code).toBe("INTERNAL");
  });

  it("hides unexpected errors behind INTERNAL, keeping the original only as the cause", () => {
    const original = new Error("connection to 10.0.0.5:5432 refused at /srv/app/db.ts:12");
    const error = toAppError(original);
    expect(error.code).toBe("INTERNAL");
    expect(error.status).toBe(500);
    expect(error.message).not.toContain("10.0.0.5");
    expect(error.cause).toBe(original);
    expect(JSON.stringify(problemBody(error))).not.toMatch(/10\.0\.0\.5|db\.ts|"stack"/);
  });
});

describe("problemResponse", () => {
  const respond = (error: AppError) => {
    const app = new Hono();
    app.get("/where", (c) => problemResponse(c, error));
    return app.request("/where");
  };

  it("is application/problem+json with type, title, status, detail, code and instance", async () => {
    const response = await respond(new AppError("NOT_FOUND", "No such thing"));
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toEqual({
      type: "https://meridian.dev/problems/not-found",
      title: "Not found",
      status: 404,
      detail: "No such thing",
      code: "NOT_FOUND",
      instance: "/where",
    });
  });

  it("includes field errors and extra headers", async () => {
    const response = await respond(new AppError("RATE_LIMITED", undefined, { headers: { "Retry-After": "30" } }));
    expect(response.headers.get("retry-after")).toBe("30");
    const validation = await respond(new AppError("VALIDATION_FAILED", "Bad", { errors: [{ path: "name", message: "required" }] }));
    expect((await validation.json()).errors).toEqual([{ path: "name", message: "required" }]);
  });

  it("leaves the connection to the server: a refused body is read and dropped after its answer (lingering-close.ts)", async () => {
    expect((await respond(new AppError("PAYLOAD_TOO_LARGE"))).headers.get("connection")).toBeNull();
  });
});

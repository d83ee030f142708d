import { describe, expect, it } from "vitest";
import { refusedForNow } from "./client";

const refusal = (fields: { code?: string; status?: number }) => Object.assign(new Error("refused"), fields);

describe("refusedForNow", () => {
  it.each([["SERVICE_UNAVAILABLE"], ["MAINTENANCE"], ["RATE_LIMITED"], ["INSUFFICIENT_STORAGE"]])("takes the server's %s for a refusal for now", (code) => {
    expect(refusedForNow(refusal({ code }))).toBe(true);
  });

  it.each([[503], [429], [507]])("takes an upload answered %i for a refusal for now", (status) => {
    expect(refusedForNow(refusal({ status }))).toBe(true);
  });

  it.each([
    [refusal({ code: "INVALID_TRANSITION" })],
    [refusal({ code: "PAYLOAD_TOO_LARGE" })],
    [refusal({ status: 413 })],
    [refusal({ status: 404 })],
    [new Error("not connected")],
    [undefined],
  ])("takes anything else for final: %s", (error) => {
    expect(refusedForNow(error)).toBe(false);
  });
});

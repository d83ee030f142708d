import { describe, expect, it } from "vitest";
import { observationDraftProblems } from "@meridian/rules/observations";
import { validationError } from "../../platform/errors";
import { observationCreateSchema, observationUpdateSchema } from "./schemas";
import "../../platform/validation/zod-error-map";

const exposure = { filter: "L", exposureSeconds: 60, count: 1, binning: 1 };
const target = { name: "M31", ra: 10.6847, dec: 41.269, exposures: [exposure] };
const fields = {
  name: "Andromeda",
  type: "flexible",
  priority: 5,
  targets: [target],
  constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
  fixedTimeStart: null,
  fixedTimeEnd: null,
};

/** The API's `errors[]` for a body, as `{path: message}`. */
function apiErrors(schema: typeof observationCreateSchema | typeof observationUpdateSchema, body: unknown): Record<string, string> {
  const result = schema.safeParse(body);
  if (result.success) return {};
  return Object.fromEntries((validationError({ issues: result.error.issues }).errors ?? []).map((error) => [error.path, error.message]));
}

describe("the wizard's checks are the API's", () => {
  it.each<[string, Record<string, unknown>]>([
    ["a complete observation", {}],
    ["an empty name", { name: " " }],
    ["a name with a control character", { name: "a\u0000b" }],
    ["priority 11", { priority: 11 }],
    ["priority as text", { priority: "high" }],
    ["no targets", { targets: [] }],
    ["RA of 360 and Dec of -91", { targets: [{ ...target, ra: 360, dec: -91 }] }],
    ["a second target without exposures", { targets: [target, { ...target, exposures: [] }] }],
    ["a bad exposure", { targets: [{ ...target, exposures: [{ filter: "", exposureSeconds: 0, count: 0.5, binning: 9 }] }] }],
    ["bad constraints", { constraints: { minAltitude: -1, maxAirmass: 50, moonDistance: 200, twilight: "golden" } }],
    ["a fixed-time observation without its start", { type: "fixed_time" }],
    ["a window that ends before it starts", { fixedTimeStart: "2026-12-01T02:00:00.000Z", fixedTimeEnd: "2026-12-01T01:00:00.000Z" }],
  ])("%s", (_what, change) => {
    const draft = { ...fields, ...change };
    const wizard = observationDraftProblems(draft);
    expect(apiErrors(observationCreateSchema, { ...draft, projectId: "p", observatoryId: "o" })).toEqual(wizard);
    expect(apiErrors(observationUpdateSchema, draft)).toEqual(wizard);
  });
});

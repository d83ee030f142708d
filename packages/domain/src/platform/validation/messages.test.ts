import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validationError } from "../errors";
import { organizationCreateSchema } from "../../features/organizations/schemas";
import { fieldLabel, fieldMessage, shortNameProblem, SHORT_NAME_FORMAT } from "@meridian/rules";
import "./zod-error-map";

/** The `errors[]` messages the API would give for `input` against `schema`. */
function messagesFor(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected a failure");
  return (validationError({ issues: result.error.issues }).errors ?? []).map((error) => error.message);
}

describe("field labels", () => {
  it.each([
    [["latitude"], "Latitude"],
    [["shortName"], "Short name"],
    [["contactEmail"], "Contact email"],
    [["update", "name"], "Name"],
    [["externalStorage", 0, "label"], "Label (external storage 1)"],
    [["targets", "users", "ids", 2], "IDs (item 3)"],
    [["userIds", "0"], "User IDs (item 1)"],
    [["targets", 0, "ra"], "RA (target 1)"],
    [["can_view"], "Can view"],
    [[], "The input"],
    [[4], "Item 5"],
  ])("%j reads as %s", (path, label) => {
    expect(fieldLabel(path)).toBe(label);
  });
});

describe("messages for every kind of zod issue", () => {
  const cases: Array<[string, z.ZodType, unknown, string]> = [
    ["a number too big", z.object({ latitude: z.number().max(90) }), { latitude: 91 }, "Latitude must be at most 90."],
    ["a number too small, exclusive", z.object({ limit: z.number().gt(0) }), { limit: 0 }, "Limit must be greater than 0."],
    ["a number too big, exclusive", z.object({ limit: z.number().lt(10) }), { limit: 10 }, "Limit must be less than 10."],
    [
      "a string too long",
      z.object({ description: z.string().max(5000) }),
      { description: "x".repeat(5001) },
      "Description must have at most 5,000 characters.",
    ],
    ["a string too short", z.object({ password: z.string().min(8) }), { password: "short" }, "Password must have at least 8 characters."],
    ["an empty string", z.object({ name: z.string().min(1) }), { name: "" }, "Name must not be empty."],
    ["a missing field", z.object({ contactEmail: z.string() }), {}, "Contact email is required."],
    ["a wrong type", z.object({ latitude: z.number() }), { latitude: "north" }, "Latitude must be a number."],
    ["a fraction for an integer", z.object({ limit: z.int() }), { limit: 1.5 }, "Limit must be a whole number."],
    ["text expected", z.object({ name: z.string() }), { name: 5 }, "Name must be text."],
    ["a list expected", z.object({ ids: z.array(z.string()) }), { ids: "a" }, "IDs must be a list."],
    ["a boolean expected", z.object({ email: z.boolean() }), { email: "yes" }, "Email must be true or false."],
    ["too many items", z.object({ ids: z.array(z.string()).max(2) }), { ids: ["a", "b", "c"] }, "IDs must have at most 2 items."],
    ["no items", z.object({ ids: z.array(z.string()).min(1) }), { ids: [] }, "IDs must have at least one item."],
    ["an element of a list", z.object({ ids: z.array(z.string().max(3)) }), { ids: ["ok", "toolong"] }, "IDs (item 2) must have at most 3 characters."],
    [
      "a field in a list of objects",
      z.object({ externalStorage: z.array(z.object({ label: z.string().min(1) })) }),
      { externalStorage: [{ label: "" }] },
      "Label (external storage 1) must not be empty.",
    ],
    ["an email", z.object({ contactEmail: z.email() }), { contactEmail: "nope" }, "Contact email must be a valid email address."],
    ["a URL", z.object({ homepage: z.url() }), { homepage: "nope" }, "Homepage must be a valid URL."],
    ["a date-time", z.object({ startsAt: z.iso.datetime() }), { startsAt: "now" }, "Starts at must be a date and time such as 2026-01-31T20:00:00Z."],
    ["a regex without a message", z.object({ code: z.string().regex(/^\d+$/) }), { code: "x" }, "Code is not in the expected form."],
    ["a prefix", z.object({ key: z.string().startsWith("mk_") }), { key: "x" }, "Key must start with “mk_”."],
    ["an enum", z.object({ type: z.enum(["university", "other"]) }), { type: "club" }, "Type must be one of “university” or “other”."],
    ["a literal", z.object({ all: z.literal(true) }), { all: false }, "All must be true."],
    ["a multiple", z.object({ step: z.number().multipleOf(5) }), { step: 7 }, "Step must be a multiple of 5."],
    ["a union", z.object({ value: z.union([z.string(), z.number()]) }), { value: true }, "Value does not match any of the allowed forms."],
    ["a record key", z.object({ settings: z.record(z.string().max(2), z.string()) }), { settings: { long: "x" } }, "Long is not an allowed key."],
    [
      "a refinement with its own predicate",
      z.object({ name: z.string().refine((value) => !value.includes("\u0007"), "must not contain control characters") }),
      { name: "\u0007" },
      "Name must not contain control characters.",
    ],
    ["a refinement without one", z.object({ name: z.string().refine(() => false) }), { name: "x" }, "Name is not valid."],
    ["an unknown field", z.strictObject({ name: z.string() }), { name: "x", colour: "red" }, "“colour” is not a known field."],
    ["the whole input", z.object({}), "text", "The input must be an object."],
  ];

  it.each(cases)("%s", (_label, schema, input, message) => {
    expect(messagesFor(schema, input)).toEqual([message]);
  });

  it("keeps every message a sentence: a capital first, a full stop last", () => {
    for (const [, schema, input] of cases) for (const message of messagesFor(schema, input)) expect(message).toMatch(/^[A-Z“].*\.$/);
  });

  it("keeps a predicate that is a sentence already as it is", () => {
    expect(fieldMessage(["name"], "Choose another name.")).toBe("Choose another name.");
  });
});

describe("the short-name rule", () => {
  it("says the same as the API, in the words of the form's hint", () => {
    const fromApi = messagesFor(organizationCreateSchema.pick({ shortName: true }), { shortName: "x" });
    expect(fromApi).toEqual([`Short name must be ${SHORT_NAME_FORMAT}.`]);
    expect(shortNameProblem("x")).toBe(fromApi[0]);
    expect(shortNameProblem("-leading-dash")).toBe(fromApi[0]);
    expect(shortNameProblem("a".repeat(33))).toBe(fromApi[0]);
    expect(shortNameProblem(" kepler-obs ")).toBeNull();
    expect(shortNameProblem("k2")).toBeNull();
  });
});

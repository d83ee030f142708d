import { collections, fileDocSchema, observationDocSchema, observationHistoryDocSchema } from "@meridian/db";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fastAcceptOf } from "./fast-accept";

const observation = {
  name: "M31 mosaic",
  projectId: "prj_1",
  observatoryId: "obs_1",
  ownerId: "usr_1",
  type: "flexible",
  priority: 5,
  targets: [
    { name: "M31", ra: 10.68, dec: 41.27, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: 300, count: 12, binning: 1 }] },
    { name: "M32", ra: 10.67, dec: 40.87, exposures: [{ filter: "Ha", exposureSeconds: 600, count: 6, binning: 2 }] },
  ],
  constraints: { minAltitude: 30, maxAirmass: 2, moonDistance: null, twilight: "astronomical" },
  fixedTimeStart: null,
  fixedTimeEnd: "2026-11-20T13:14:51.574416+00:00",
  bypassDarkness: false,
  notifications: { email: true, push: false, states: ["completed", "failed"] },
  status: "pending",
  statusReason: null,
  statusChangedAt: "2026-11-20T13:14:51Z",
  isMonitoring: false,
  staleReportedAt: null,
  captured_files: ["a.fits"],
};
const history = {
  observationId: "ob_1",
  from: "pending",
  to: "assigned",
  at: "2026-11-20T13:14:51.574Z",
  actor: { kind: "system", id: "dispatch" },
  reason: null,
};
const file = {
  observationId: "ob_1",
  observatoryId: "obs_1",
  filename: "m31_L_001.fits",
  sizeBytes: 16_777_216,
  sha256: "a".repeat(64),
  contentType: "image/fits",
  kind: "image",
  previewOfId: null,
  objectKey: "observations/ob_1/m31_L_001.fits",
};

/** Values a damaged document might hold where a valid one holds something else. */
const strangeValues: unknown[] = [
  undefined,
  null,
  "",
  " ",
  " M31",
  "M31 ",
  "\u00a0M31",
  "M31\ufeff",
  "x",
  "😀".repeat(100),
  "😀".repeat(101),
  "\ud800".repeat(201),
  "a".repeat(201),
  "a".repeat(256),
  "L".repeat(41),
  "assigned",
  "nowhere",
  "2026-11-20",
  "2026-13-20T13:14:51Z",
  "2026-02-30T13:14:51Z",
  "2026-11-20T25:14:51Z",
  "2026-11-20 13:14:51Z",
  "2026-11-20T13:14:51",
  "2026-11-20T13:14:51.5+01:00",
  "A".repeat(64),
  "g".repeat(64),
  "a".repeat(63),
  0,
  -0,
  -1,
  0.5,
  1,
  4,
  5,
  10,
  11,
  90,
  360,
  359.999,
  -90.0001,
  86_400,
  86_400.5,
  2 ** 53,
  2 ** 53 - 1,
  1e308,
  true,
  false,
  [],
  [null],
  ["completed", "completed"],
  ["nowhere"],
  {},
  { kind: "user" },
];

/** Each document with one value anywhere in it (at any depth) replaced by each strange value. */
function* damaged(doc: unknown, path: Array<string | number> = []): Generator<unknown> {
  if (doc === null || typeof doc !== "object") return;
  for (const key of Object.keys(doc)) {
    const child = (doc as Record<string, unknown>)[key];
    for (const value of strangeValues) yield replaceAt(doc, key, value);
    for (const inner of damaged(child, [...path, key])) yield replaceAt(doc, key, inner);
  }
}

function replaceAt(doc: object, key: string, value: unknown): unknown {
  const copy: Record<string, unknown> = Array.isArray(doc) ? ([...doc] as unknown as Record<string, unknown>) : { ...doc };
  if (value === undefined && !Array.isArray(doc)) delete copy[key];
  else copy[key] = value;
  return copy;
}

describe("the scan's fast structure check", () => {
  it("exists for every collection but the one whose URL only zod can check", () => {
    const withoutFastCheck = Object.entries(collections)
      .filter(([, collection]) => !fastAcceptOf(collection.schema))
      .map(([name]) => name);
    expect(withoutFastCheck).toEqual(["push_subscriptions"]);
  });

  it.each([
    ["observation", observationDocSchema, observation],
    ["history entry", observationHistoryDocSchema, history],
    ["file record", fileDocSchema, file],
  ] as const)("accepts a valid %s, and never a damaged one that zod refuses", (_, schema, doc) => {
    const accept = fastAcceptOf(schema)!;
    expect(schema.safeParse(doc).success).toBe(true);
    expect(accept(doc)).toBe(true);
    let refusedByZod = 0;
    let acceptedByBoth = 0;
    for (const candidate of damaged(doc)) {
      const zodAccepts = schema.safeParse(candidate).success;
      if (!zodAccepts) refusedByZod += 1;
      if (accept(candidate)) {
        expect({ candidate, zodAccepts }).toEqual({ candidate, zodAccepts: true });
        acceptedByBoth += 1;
      }
    }
    expect(refusedByZod).toBeGreaterThan(250);
    expect(acceptedByBoth).toBeGreaterThan(20);
  });

  it("accepts a trimmed string only when trimming leaves it unchanged", () => {
    const schema = z.object({ name: z.string().trim().min(1).max(3) });
    const accept = fastAcceptOf(schema)!;
    expect(["abc", "a", "a b", "😀😀😀"].map((name) => accept({ name }))).toEqual([true, true, true, true]);
    // zod accepts these after trimming them, which the scan leaves to zod.
    expect([" abc", "abc\n", "\u00a0a"].map((name) => [accept({ name }), schema.safeParse({ name }).success])).toEqual([
      [false, true],
      [false, true],
      [false, true],
    ]);
    expect([" ", "abcd", "😀😀😀😀"].map((name) => [accept({ name }), schema.safeParse({ name }).success])).toEqual([
      [false, false],
      [false, false],
      [false, false],
    ]);
  });

  it("counts a pair of surrogates as one character and a lone one as one, as zod does", () => {
    const schema = z.string().min(2).max(2);
    const accept = fastAcceptOf(schema)!;
    for (const value of ["😀😀", "😀", "\ud800\ud800", "\ud800", "\udc00\ud800", "a\ud83d", "\ud83d\ude00\ud83d"])
      expect([value, accept(value)]).toEqual([value, schema.safeParse(value).success]);
  });

  it("does not exist when its JSON Schema could accept what zod refuses", () => {
    const unsure = [
      z.object({ a: z.string().refine((value) => value !== "no") }),
      z.object({ a: z.url() }),
      z.object({ a: z.string().regex(/^a$/i) }),
      z.object({ a: z.string().regex(/^a/).regex(/b$/) }),
      z.object({ a: z.string().transform((value) => value.length) }),
      z.object({ a: z.string().pipe(z.string().min(3)) }),
      z.object({ a: z.number().multipleOf(0.1) }),
      z.object({ a: z.date() }),
      z.object({ a: z.ipv6() }),
      z.record(z.enum(["a", "b"]), z.string()),
    ];
    expect(unsure.map((schema) => fastAcceptOf(schema))).toEqual(unsure.map(() => null));
  });

  it("refuses numbers that JSON cannot hold exactly and integers beyond the safe range", () => {
    const accept = fastAcceptOf(z.object({ n: z.number(), i: z.number().int() }))!;
    expect(accept({ n: 1.5, i: 2 ** 53 - 1 })).toBe(true);
    expect(accept({ n: Number.POSITIVE_INFINITY, i: 1 })).toBe(false);
    expect(accept({ n: Number.NaN, i: 1 })).toBe(false);
    expect(accept({ n: 1, i: 2 ** 53 })).toBe(false);
  });
});

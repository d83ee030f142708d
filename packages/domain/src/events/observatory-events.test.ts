import type { Executor } from "@meridian/db";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { publishObservatoryEvent } from "./publish";

/** A database that fails the test if an event reaches it: a message no plugin could read must be refused before. */
const untouchableDb = new Proxy({} as Executor, {
  get(_target, property) {
    throw new Error(`db.${String(property)} was used`);
  },
});

describe("publishing to observatories", () => {
  it("refuses a message off the shared schema, to the compiler and before the database", async () => {
    const observatoryIds = ["obs_1"];
    // @ts-expect-error: a cancel names its observation as `observationId`.
    await expect(publishObservatoryEvent(untouchableDb, { observatoryIds, event: { type: "cancel", data: { id: "obn_1" } } })).rejects.toThrow(ZodError);
    const observation = { id: "obn_1", name: "No targets" };
    // @ts-expect-error: an assignment carries the whole observation as the API presents it.
    await expect(publishObservatoryEvent(untouchableDb, { observatoryIds, event: { type: "assign", data: { observation } } })).rejects.toThrow(ZodError);
    // @ts-expect-error: the protocol has no such message.
    await expect(publishObservatoryEvent(untouchableDb, { observatoryIds, event: { type: "assignment", data: { observation } } })).rejects.toThrow(ZodError);
  });
});

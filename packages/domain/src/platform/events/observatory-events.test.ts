import { describe, expectTypeOf, it } from "vitest";
import type { publishObservatoryEvent } from "./publish";

type Published = Parameters<typeof publishObservatoryEvent>[0]["event"];

describe("publishing to observatories", () => {
  it("takes only the protocol's messages to plugins, each as its type and the rest as data", () => {
    expectTypeOf<{ type: "cancel"; data: { observationId: string } }>().toExtend<Published>();
    expectTypeOf<{ type: "update_required"; data: { minimumPluginVersion: string } }>().toExtend<Published>();
    // A cancel names its observation as `observationId`; an assignment carries the whole observation as the API presents it.
    expectTypeOf<{ type: "cancel"; data: { id: string } }>().not.toExtend<Published>();
    expectTypeOf<{ type: "assign"; data: { observation: { id: string; name: string } } }>().not.toExtend<Published>();
    // Replies answer a plugin's own messages on its connection; they are never published.
    expectTypeOf<{ type: "ack"; data: { id: string } }>().not.toExtend<Published>();
    expectTypeOf<{ type: "assignment"; data: { observationId: string } }>().not.toExtend<Published>();
  });
});

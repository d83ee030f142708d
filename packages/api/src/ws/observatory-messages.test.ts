import type { ObservatoryMessage } from "./observatory-message";
import { serverToPluginMessageSchema } from "@meridian/rules/observatory-protocol";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { observatoryProtocol } from "./observatory-protocol";
import type { ProtocolConnection } from "./protocol";

type Protocol = typeof observatoryProtocol;

describe("what the server sends on /ws/observatory", () => {
  it("is an ObservatoryMessage wherever the protocol sends: its handlers' connection, its replies and its framed events", () => {
    expectTypeOf<Parameters<Protocol["handlers"]["hello"]>[0]["connection"]>().toEqualTypeOf<ProtocolConnection<ObservatoryMessage>>();
    expectTypeOf<Protocol["replies"]["ack"]>().returns.toExtend<ObservatoryMessage>();
    expectTypeOf<Protocol["replies"]["error"]>().returns.toExtend<ObservatoryMessage>();
    expectTypeOf<NonNullable<Protocol["frame"]>>().returns.toExtend<ObservatoryMessage>();
  });

  it("does not compile when it does not match the shared schema, which refuses it too", () => {
    const sent: unknown[] = [];
    const connection: ProtocolConnection<ObservatoryMessage> = { send: (message) => void sent.push(message), close: () => undefined, isOpen: () => true };
    connection.send({ type: "cancel", observationId: "obn_1" });
    connection.send({ type: "update_required", minimumPluginVersion: "3.10.0.0" });
    // @ts-expect-error: a cancel names its observation as `observationId`.
    connection.send({ type: "cancel", id: "obn_1" });
    // @ts-expect-error: `assign` carries the whole observation, not its id.
    connection.send({ type: "assign", observation: "obn_1" });
    // @ts-expect-error: the protocol has no such message.
    connection.send({ type: "assignment", observationId: "obn_1" });
    // @ts-expect-error: an ack answers a message by its id.
    connection.send({ type: "ack" });
    expect(sent.map((message) => serverToPluginMessageSchema.safeParse(message).success)).toEqual([true, true, false, false, false, false]);
  });
});

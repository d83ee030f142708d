import { randomBytes } from "node:crypto";
import { pluginToServerMessageSchema, type PluginMessageBody } from "@meridian/rules/observatory-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { z } from "zod";
import { createAccount } from "../support/auth-suite";
import { valueAtEdge, type Edge } from "../support/boundary-values";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { openPluginSocket } from "../support/plugin-socket";
import { STACK_TRACE } from "../support/operation-walk";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * The observatory protocol's side of "never a 500": every message a plugin may send, at its
 * schema's edges, from a plugin holding an assigned observation whose owner is told by push and
 * email, is answered with `ack` or an `error` with a code other than INTERNAL, and the connection
 * stays open.
 */

const ADMIN = { email: "plugin-edge-admin@example.com", password: "plugin edge admin password" };
const EDGES: Edge[] = ["most", "least"];
const target = { name: "M 31", ra: 10.6847, dec: 41.269, epoch: "J2000", exposures: [{ filter: "R", exposureSeconds: 1, count: 1, binning: 1 }] };

let server: TestServer;
const { must } = jsonApi(() => server);

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", PLUGIN_MESSAGES_PER_SECOND: "1000" }));
});
afterAll(() => server?.stop());

/** Each message type of the protocol at each edge, the assigned observation named wherever a message names one. */
function messagesAtEdges(observationId: string): PluginMessageBody[] {
  const schema = z.toJSONSchema(pluginToServerMessageSchema, { io: "input", unrepresentable: "any" }) as { oneOf: unknown[] };
  const named = (name: string) => (name === "observationId" ? observationId : name === "pluginVersion" ? "9.99.999.9999" : undefined);
  return schema.oneOf.flatMap((variant) =>
    EDGES.map((edge) => {
      const { id: _id, ...message } = valueAtEdge(variant, edge, { components: {}, named }) as Record<string, unknown>;
      return message as PluginMessageBody;
    }),
  );
}

/** A report near its 64 KiB limit, nested to its 32 levels, in every kind of JSON value. */
function fullReport(): Record<string, unknown> {
  let nested: Record<string, unknown> = { leaf: `a'%_\\"é🔭` };
  for (let depth = 0; depth < 30; depth += 1) nested = { [`level ${depth}`]: nested, n: depth, on: depth % 2 === 0, none: null };
  return { nested, text: "x".repeat(50_000), list: Array.from({ length: 200 }, (_, index) => index * 1.5) };
}

describe("a plugin's messages at their schema's edges", () => {
  it("are each answered with ack or a coded error, never INTERNAL, and the connection stays open", { timeout: 120_000 }, async () => {
    const owner = await createAccount(server);
    await must("/api/v1/user/pushover", {
      method: "PUT",
      token: owner.token,
      json: { userKey: "e".repeat(10) + randomBytes(10).toString("hex"), devices: [] },
    });
    const { observatory, project, key } = await observingNetwork(must, owner);
    const socket = await openPluginSocket(server.url, key.key);
    expect((await socket.ask({ type: "hello", pluginVersion: "4.0.0.0" })).type).toBe("ack");
    const observation = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Edges", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
      201,
    )) as { id: string };
    await until("the assignment", async () => socket.received().some((message) => message.type === "assign"));

    const messages = [
      ...messagesAtEdges(observation.id).filter((message) => message.type !== "goodbye"),
      { type: "config", systemInfo: fullReport(), equipment: fullReport() } as PluginMessageBody,
      // The moves a run makes, each with a reason at its longest: the owner is told of each by email and push.
      { type: "observation_status", observationId: observation.id, status: "in_progress", reason: "🔭".repeat(1000) } as PluginMessageBody,
      { type: "observation_status", observationId: observation.id, status: "suspended", reason: "r".repeat(1000) } as PluginMessageBody,
      { type: "observation_status", observationId: observation.id, status: "failed", reason: `a'%_\\"é`.repeat(142) } as PluginMessageBody,
    ];
    expect(messages.length).toBeGreaterThan(14);
    const failures: string[] = [];
    for (const message of messages) {
      const reply = await socket.ask(message);
      const label = `${message.type} ${JSON.stringify(message).slice(0, 80)}`;
      if (reply.type === "error" && (reply.code === "INTERNAL" || !reply.code)) failures.push(`${label}: ${JSON.stringify(reply).slice(0, 200)}`);
      if (STACK_TRACE.test(JSON.stringify(reply))) failures.push(`${label}: a stack frame in ${JSON.stringify(reply).slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect(socket.client.ws.readyState).toBe(WebSocket.OPEN);
    const stored = (await must(`/observations/${observation.id}`, { token: owner.token }, 200)) as { status: string; statusReason: string };
    expect(stored).toMatchObject({ status: "failed", statusReason: `a'%_\\"é`.repeat(142) });
  });
});

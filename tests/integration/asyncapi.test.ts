import { Parser } from "@asyncapi/parser";
import { refusedForNow } from "@meridian/observatory-client";
import { ObservatorySimulator } from "@meridian/simulator";
import { pluginToServerMessageSchema, serverToPluginMessageSchema } from "@meridian/rules/observatory-protocol";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "asyncapi-admin@example.com", password: "asyncapi admin password" };
let server: TestServer;
let adminToken: string;
let simulator: ObservatorySimulator | undefined;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
});
afterAll(async () => {
  await simulator?.close().catch(() => undefined);
  await server?.stop();
});
const { must } = jsonApi(() => server);

interface AsyncApiDocument {
  asyncapi: string;
  servers: Record<string, { host: string; protocol: string; pathname: string }>;
  operations: Record<string, { action: string; messages: Array<{ $ref: string }> }>;
  components: { messages: Record<string, { payload: object }> };
}
const typesOf = (schema: typeof pluginToServerMessageSchema | typeof serverToPluginMessageSchema) =>
  schema.options.map((option) => (option.shape.type as { value: string }).value).sort();

describe("the plugin protocol, published", () => {
  it("is a valid AsyncAPI 3.0 document with every message of both directions, from the server's side", async () => {
    const response = await server.request("/api/asyncapi.json");
    expect(response.status).toBe(200);
    const document = (await response.json()) as AsyncApiDocument;
    const { diagnostics } = await new Parser().parse(JSON.stringify(document));
    // Severity 0 is an error in the parser's diagnostics (Spectral's scale).
    expect(diagnostics.filter((diagnostic) => diagnostic.severity === 0)).toEqual([]);
    expect(document.asyncapi).toBe("3.0.0");
    expect(document.servers.meridian).toMatchObject({ protocol: "ws", pathname: "/ws/observatory", host: new URL(server.url).host });
    const byAction = (action: string) =>
      Object.values(document.operations)
        .filter((operation) => operation.action === action)
        .map((operation) => operation.messages[0]!.$ref.split("/").at(-1))
        .sort();
    expect(byAction("receive")).toEqual(typesOf(pluginToServerMessageSchema));
    expect(byAction("send")).toEqual(typesOf(serverToPluginMessageSchema));
  });

  it("describes the messages the server really sends, and accepts what a plugin sends", async () => {
    const document = (await (await server.request("/api/asyncapi.json")).json()) as AsyncApiDocument;
    const ajv = new Ajv({ strict: false });
    const validators = Object.fromEntries(Object.entries(document.components.messages).map(([name, message]) => [name, ajv.compile(message.payload)]));
    const owner = await createAccount(server);
    const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Published" } }, 201)) as { id: string };
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Published" } }, 201)) as { id: string };
    const key = (
      (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as { key: string }
    ).key;
    simulator = new ObservatorySimulator({ url: server.url, key, speed: 0.0001 });
    await simulator.connect();
    const observation = (await must(
      "/observations",
      {
        method: "POST",
        token: owner.token,
        json: {
          name: "Published",
          projectId: project.id,
          observatoryId: observatory.id,
          targets: [{ name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 30, count: 1, binning: 1 }] }],
        },
      },
      201,
    )) as { id: string };
    const received = simulator.received;
    await until("the assignment", async () => received.some((message) => message.type === "assign"));
    await must(`/observations/${observation.id}/cancel`, { method: "POST", token: owner.token, json: { reason: "published" } }, 200);
    await until("the cancel", async () => received.some((message) => message.type === "cancel"));
    await expect(simulator.send({ type: "observation_status", observationId: "obn_none", status: "completed" })).rejects.toThrow();
    await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { minimumPluginVersion: "9.0" } }, 200);
    try {
      await until("update_required", async () => received.some((message) => message.type === "update_required"));
    } finally {
      await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { minimumPluginVersion: null } }, 200);
    }
    const seen = new Set(received.map((message) => message.type));
    expect([...seen].sort()).toEqual(expect.arrayContaining(["ack", "assign", "cancel", "error", "update_required"]));
    for (const message of received) {
      const validate = validators[message.type]!;
      expect(validate(message), `${message.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    // What a plugin sends, as the protocol's examples have it.
    for (const message of [
      { type: "hello", id: 1, pluginVersion: "3.8.0.0", equipment: { camera: "ASI2600MM", filters: ["L", "R", "G", "B", "Ha", "OIII", "SII"] } },
      { type: "config", id: 5, equipment: { filters: ["L", "Ha"] } },
      { type: "heartbeat", id: "2" },
      { type: "observation_status", id: 3, observationId: "obn_x", status: "in_progress" },
      { type: "weather", id: 4, hold: true, reason: "clouds" },
    ])
      expect(validators[message.type]!(message), message.type).toBe(true);
    expect(validators.hello!({ type: "hello", id: 1 })).toBe(false);
    // equipment.filters is described as the server checks it: a list of names, not any value.
    for (const filters of ["L,R,G,B", [], [7], ["x".repeat(41)]])
      expect(validators.config!({ type: "config", id: 6, equipment: { filters } }), JSON.stringify(filters)).toBe(false);
  });

  it("has a page for people with a worked session from hello to a completed observation and its file", async () => {
    const response = await server.request("/api/docs/observatory");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain("A worked session");
    expect(html).toContain("POST /observations/obn_…/files?filename=");
    for (const type of [...typesOf(pluginToServerMessageSchema), ...typesOf(serverToPluginMessageSchema)]) expect(html).toContain(`id="${type}"`);
  });

  it("names as refusals for now, of a message and of an upload, those the observatory client takes for such, a full disk's among them", async () => {
    const document = (await (await server.request("/api/asyncapi.json")).json()) as AsyncApiDocument & {
      info: { description: string };
      components: { messages: Record<string, { summary: string }> };
    };
    const forNowSentence = document.components.messages.error!.summary.split(". ").find((sentence) => sentence.includes("refuse for now"))!;
    for (const code of ["SERVICE_UNAVAILABLE", "MAINTENANCE", "RATE_LIMITED", "INSUFFICIENT_STORAGE"]) {
      expect(refusedForNow({ code }), code).toBe(true);
      expect(forNowSentence).toContain(code);
    }
    const uploadSentence = document.info.description.split(". ").find((sentence) => sentence.startsWith("An upload answered"))!;
    for (const status of [503, 429, 507]) {
      expect(refusedForNow({ status }), String(status)).toBe(true);
      expect(uploadSentence).toContain(String(status));
    }
    const html = await (await server.request("/api/docs/observatory")).text();
    expect(html).toContain("INSUFFICIENT_STORAGE (the disk under the server&#39;s database is full");
    expect(html).toContain("An upload answered 503, 429 or 507 (the server&#39;s storage is full");
  });
});

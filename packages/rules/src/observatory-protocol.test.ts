import { describe, expect, it } from "vitest";
import { pluginToServerMessageSchema, serverToPluginMessageSchema } from "./observatory-protocol";

const accepted = (schema: typeof pluginToServerMessageSchema | typeof serverToPluginMessageSchema, message: unknown) => schema.safeParse(message).success;

describe("what a plugin sends on /ws/observatory", () => {
  it("is each of the contract's messages, numbered by the plugin", () => {
    const messages = [
      { type: "hello", id: 1, pluginVersion: "3.8.0.0", systemInfo: { os: "linux" }, equipment: { camera: "A" } },
      { type: "heartbeat", id: "m2" },
      { type: "config", id: 3, equipment: { camera: "B" } },
      { type: "observation_status", id: 4, observationId: "obn_1", status: "in_progress" },
      { type: "safety", id: 5, safe: false, reason: "dome fault" },
      { type: "weather", id: 6, hold: true },
      { type: "goodbye", id: 7 },
    ];
    expect(messages.filter((message) => !accepted(pluginToServerMessageSchema, message))).toEqual([]);
  });

  it("refuses an unknown type, a message without its id, a version that is not numbers and a status that does not exist", () => {
    expect(accepted(pluginToServerMessageSchema, { type: "teleport", id: 1 })).toBe(false);
    expect(accepted(pluginToServerMessageSchema, { type: "heartbeat" })).toBe(false);
    expect(accepted(pluginToServerMessageSchema, { type: "hello", id: 1, pluginVersion: "3.8-beta" })).toBe(false);
    expect(accepted(pluginToServerMessageSchema, { type: "observation_status", id: 1, observationId: "obn_1", status: "teleported" })).toBe(false);
  });

  it("holds its text to what REST takes: reasons and ids without control characters, within their lengths", () => {
    for (const reason of ["dome\u0000fault", "clouds\u0007", "rain\ud800", "x".repeat(1001), "   "]) {
      expect(accepted(pluginToServerMessageSchema, { type: "safety", id: 1, safe: false, reason })).toBe(false);
      expect(accepted(pluginToServerMessageSchema, { type: "weather", id: 1, hold: true, reason })).toBe(false);
      expect(accepted(pluginToServerMessageSchema, { type: "observation_status", id: 1, observationId: "obn_1", status: "failed", reason })).toBe(false);
    }
    // Letters of every script and emoji are text like any other; the reason is trimmed as REST trims it.
    expect(pluginToServerMessageSchema.parse({ type: "weather", id: 1, hold: true, reason: " Wolken ☁️ 雲 " })).toMatchObject({ reason: "Wolken ☁️ 雲" });
    for (const observationId of ["obn\u0000x", "obn\nx", "o".repeat(101), ""])
      expect(accepted(pluginToServerMessageSchema, { type: "observation_status", id: 1, observationId, status: "in_progress" })).toBe(false);
  });

  it("takes equipment.filters as a list of names, trimmed, each once, within their bounds, in hello and config", () => {
    const hello = (equipment: unknown) => pluginToServerMessageSchema.safeParse({ type: "hello", id: 1, pluginVersion: "3.8.0.0", equipment });
    const config = (equipment: unknown) => pluginToServerMessageSchema.safeParse({ type: "config", id: 2, equipment });
    expect(hello({ camera: "A", filters: [" L ", "R", "G", "B", "Ha"] }).data).toMatchObject({
      equipment: { camera: "A", filters: ["L", "R", "G", "B", "Ha"] },
    });
    expect(config({ filters: ["OIII"] }).success).toBe(true);
    expect(config({ filters: Array.from({ length: 50 }, (_, index) => `F${index}`) }).success).toBe(true);
    const refused = [
      [],
      ["L", "l"],
      ["L", 7],
      ["  "],
      ["x".repeat(41)],
      ["Ha\u0000"],
      Array.from({ length: 51 }, (_, index) => `F${index}`),
      "L,R,G,B",
      [{ name: "L" }],
    ];
    for (const filters of refused) {
      expect(hello({ filters }).success, JSON.stringify(filters)).toBe(false);
      expect(config({ filters }).success, JSON.stringify(filters)).toBe(false);
    }
    expect(config({ camera: "no wheel" }).success).toBe(true);
  });

  it("takes a plugin version of at most 64 characters", () => {
    const version = (length: number) => `4.${"0".repeat(length - 2)}`;
    expect(accepted(pluginToServerMessageSchema, { type: "hello", id: 1, pluginVersion: version(64) })).toBe(true);
    expect(accepted(pluginToServerMessageSchema, { type: "hello", id: 1, pluginVersion: version(65) })).toBe(false);
    expect(accepted(pluginToServerMessageSchema, { type: "hello", id: 1, pluginVersion: version(200_000) })).toBe(false);
  });
});

describe("what the server sends a plugin", () => {
  const observation = {
    id: "obn_1",
    name: "M31 tonight",
    status: "assigned",
    constraints: { minAltitude: 30 },
    targets: [{ name: "M31", ra: 10.68, dec: 41.27, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: 300, count: 12, binning: 1 }] }],
  };

  it("is each of the contract's messages, and an assignment keeps the fields a plugin does not read", () => {
    const messages = [
      { type: "assign", observation },
      { type: "cancel", observationId: "obn_1" },
      { type: "update_required", minimumPluginVersion: "3.10.0.0" },
      { type: "motd", announcement: { id: "ann_1", title: "Dome work", message: "Closed on Friday", severity: "warning", scope: "observatory" } },
      { type: "ack", id: "m1" },
      { type: "error", id: null, code: "VALIDATION_FAILED", message: "Messages must be JSON" },
    ];
    expect(messages.filter((message) => !accepted(serverToPluginMessageSchema, message))).toEqual([]);
    expect(serverToPluginMessageSchema.parse({ type: "assign", observation })).toEqual({ type: "assign", observation });
  });

  it("refuses an assignment a plugin could not run and a cancel that does not name its observation", () => {
    expect(accepted(serverToPluginMessageSchema, { type: "assign", observation: { id: "obn_1", name: "No targets" } })).toBe(false);
    expect(accepted(serverToPluginMessageSchema, { type: "assign", observation: { ...observation, targets: [{ name: "M31", ra: 10.68, dec: 41.27 }] } })).toBe(
      false,
    );
    expect(accepted(serverToPluginMessageSchema, { type: "cancel", id: "obn_1" })).toBe(false);
    expect(accepted(serverToPluginMessageSchema, { type: "assignment", observation })).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import type { CachedPrincipal } from "../auth/principal";
import { RequestCaches } from "./request-caches";

const NOW = 1_000_000;
const principal = (userId: string): CachedPrincipal => ({
  user: { id: userId, doc: {} as CachedPrincipal["user"]["doc"], createdAt: new Date(0), updatedAt: new Date(0) },
  via: "session",
  credentialId: `ses_${userId}`,
  tokenExpiresAt: null,
});

function filled() {
  const caches = new RequestCaches(5_000);
  caches.principals.set("hash-a", principal("usr_a"), NOW + 5_000);
  caches.principals.set("hash-b", principal("usr_b"), NOW + 5_000);
  caches.pending.set("usr_a", { items: [] }, NOW + 5_000);
  caches.pending.set("usr_b", { items: [] }, NOW + 5_000);
  return caches;
}

describe("RequestCaches", () => {
  it("drops one credential, or every credential and the pending list of one user", () => {
    const caches = filled();
    caches.apply({ kind: "token", tokenHash: "hash-a" });
    expect(caches.principals.get("hash-a", NOW)).toBeUndefined();
    expect(caches.pending.get("usr_a", NOW)).toBeDefined();
    caches.apply({ kind: "user", userId: "usr_b" });
    expect(caches.principals.get("hash-b", NOW)).toBeUndefined();
    expect(caches.pending.get("usr_b", NOW)).toBeUndefined();
    expect(caches.pending.get("usr_a", NOW)).toBeDefined();
  });

  it("moves the credentials' generation on with every credential or user change and a clear, so a lookup that raced one is not kept", () => {
    const caches = filled();
    const before = caches.principalsGeneration;
    caches.apply({ kind: "token", tokenHash: "hash-a" });
    caches.apply({ kind: "user", userId: "usr_b" });
    caches.clear();
    expect(caches.principalsGeneration).toBe(before + 3);
    caches.apply({ kind: "announcements" });
    expect(caches.principalsGeneration).toBe(before + 3);
  });

  it("drops every pending list on an announcement change, and moves the generation on", () => {
    const caches = filled();
    const before = caches.announcementsGeneration;
    caches.apply({ kind: "announcements" });
    expect(caches.pending.size).toBe(0);
    expect(caches.principals.size).toBe(2);
    expect(caches.announcementsGeneration).toBe(before + 1);
  });

  it("forgets everything on a payload it cannot read, and on clear (a LISTEN reconnect)", () => {
    const unreadable = filled();
    unreadable.applyMessage("not json");
    expect([unreadable.principals.size, unreadable.pending.size]).toEqual([0, 0]);
    const reconnected = filled();
    reconnected.clear();
    expect([reconnected.principals.size, reconnected.pending.size]).toEqual([0, 0]);
  });

  it("serves entries only until they expire", () => {
    const caches = filled();
    expect(caches.pending.get("usr_a", NOW + 4_999)).toBeDefined();
    expect(caches.pending.get("usr_a", NOW + 5_000)).toBeUndefined();
  });
});

describe("observation pages", () => {
  it("are bounded by their bytes: the oldest pages go first, and a page larger than the budget is not kept", () => {
    const caches = new RequestCaches(5_000);
    const page = (bytes: number) => ({ json: "x".repeat(bytes) });
    const budget = 32 * 1024 * 1024;
    caches.observationPages.set("a", page(budget / 2), NOW + 5_000);
    caches.observationPages.set("b", page(budget / 4), NOW + 5_000);
    caches.observationPages.set("c", page(budget / 2), NOW + 5_000);
    expect(caches.observationPages.get("a", NOW)).toBeUndefined();
    expect(caches.observationPages.get("b", NOW)).toBeDefined();
    expect(caches.observationPages.weight).toBe((3 * budget) / 4);
    caches.observationPages.set("huge", page(budget + 1), NOW + 5_000);
    expect(caches.observationPages.get("huge", NOW)).toBeUndefined();
    expect(caches.observationPages.size).toBe(2);
  });

  it("all go on an observations change or a clear, and the generation moves on", () => {
    const caches = filled();
    caches.observationPages.set("page", { json: "{}" }, NOW + 5_000);
    const before = caches.observationsGeneration;
    caches.apply({ kind: "observations" });
    expect(caches.observationPages.size).toBe(0);
    expect(caches.pending.size).toBe(2);
    caches.observationPages.set("page", { json: "{}" }, NOW + 5_000);
    caches.clear();
    expect([caches.observationPages.size, caches.observationPages.weight]).toEqual([0, 0]);
    expect(caches.observationsGeneration).toBe(before + 2);
  });
});

describe("no maintenance", () => {
  it("is believed for a second after a read found none, at most the caches' TTL", () => {
    const caches = new RequestCaches(5_000);
    expect(caches.knowsNoMaintenance(NOW)).toBe(false);
    caches.rememberNoMaintenance(caches.maintenanceReadStarts(), NOW);
    expect(caches.knowsNoMaintenance(NOW + 999)).toBe(true);
    expect(caches.knowsNoMaintenance(NOW + 1_000)).toBe(false);
    const shortLived = new RequestCaches(100);
    shortLived.rememberNoMaintenance(shortLived.maintenanceReadStarts(), NOW);
    expect(shortLived.knowsNoMaintenance(NOW + 100)).toBe(false);
  });

  it("is forgotten when a maintenance begins, on a clear, and on a payload it cannot read", () => {
    for (const forget of [
      (caches: RequestCaches) => caches.apply({ kind: "maintenance" }),
      (caches: RequestCaches) => caches.clear(),
      (caches: RequestCaches) => caches.applyMessage("not json"),
    ]) {
      const caches = new RequestCaches(5_000);
      caches.rememberNoMaintenance(caches.maintenanceReadStarts(), NOW);
      forget(caches);
      expect(caches.knowsNoMaintenance(NOW)).toBe(false);
    }
  });

  it("is not kept from a read that began before a maintenance was heard of", () => {
    const caches = new RequestCaches(5_000);
    const generation = caches.maintenanceReadStarts();
    caches.apply({ kind: "maintenance" });
    caches.rememberNoMaintenance(generation, NOW);
    expect(caches.knowsNoMaintenance(NOW)).toBe(false);
  });
});

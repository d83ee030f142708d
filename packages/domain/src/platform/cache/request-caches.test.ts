import { describe, expect, it } from "vitest";
import type { CachedPrincipal } from "../principal";
import type { ReadThroughCache } from "./read-through-cache";
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

/** Whether a read that `change` lands in the middle of is kept: the read begins, the change lands, then the read answers. */
async function raced<Value>(cache: ReadThroughCache<Value>, answer: Value, change: () => void): Promise<boolean> {
  let answerRead!: (value: Value) => void;
  const reading = cache.fill(
    "raced",
    () => new Promise<Value>((resolve) => (answerRead = resolve)),
    () => NOW + 5_000,
  );
  change();
  answerRead(answer);
  expect(await reading).toBe(answer);
  return cache.get("raced", NOW) !== undefined;
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

  it("keeps no lookup that raced a credential or user change or a clear, and keeps one that raced nothing of theirs", async () => {
    const changes: Array<(caches: RequestCaches) => void> = [
      (caches) => caches.apply({ kind: "token", tokenHash: "hash-z" }),
      (caches) => caches.apply({ kind: "user", userId: "usr_z" }),
      (caches) => caches.clear(),
    ];
    for (const change of changes) {
      const caches = filled();
      expect(await raced(caches.principals, principal("usr_a"), () => change(caches))).toBe(false);
    }
    const caches = filled();
    expect(await raced(caches.principals, principal("usr_a"), () => caches.apply({ kind: "announcements" }))).toBe(true);
  });

  it("drops every pending list on an announcement change, and keeps no pending read that raced one or a user's change", async () => {
    const caches = filled();
    expect(await raced(caches.pending, { items: [] }, () => caches.apply({ kind: "announcements" }))).toBe(false);
    expect(caches.pending.size).toBe(0);
    expect(caches.principals.size).toBe(2);
    expect(await raced(caches.pending, { items: [] }, () => caches.apply({ kind: "user", userId: "usr_z" }))).toBe(false);
    expect(await raced(caches.pending, { items: [] }, () => caches.apply({ kind: "pending", userId: "usr_z" }))).toBe(false);
    expect(await raced(caches.pending, { items: [] }, () => caches.apply({ kind: "observations" }))).toBe(true);
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

  it("all go on an observations change or a clear, and a read that raced either is not kept", async () => {
    const caches = filled();
    caches.observationPages.set("page", { json: "{}" }, NOW + 5_000);
    expect(await raced(caches.observationPages, { json: "{}" }, () => caches.apply({ kind: "observations" }))).toBe(false);
    expect(caches.observationPages.size).toBe(0);
    expect(caches.pending.size).toBe(2);
    caches.observationPages.set("page", { json: "{}" }, NOW + 5_000);
    expect(await raced(caches.observationPages, { json: "{}" }, () => caches.clear())).toBe(false);
    expect([caches.observationPages.size, caches.observationPages.weight]).toEqual([0, 0]);
    expect(await raced(caches.observationPages, { json: "{}" }, () => caches.apply({ kind: "token", tokenHash: "hash-a" }))).toBe(true);
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

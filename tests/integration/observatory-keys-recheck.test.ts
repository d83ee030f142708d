import { hashSecret } from "@meridian/domain/auth";
import { observatoryKeysStillValid } from "@meridian/domain/observatories";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

// The hub's heartbeat re-checks every plugin's key of a process at once (issue 26, point 3): one statement, not one per connection.
const ADMIN = { email: "keys-recheck-admin@example.com", password: "keys recheck admin password" };
let server: TestServer;
let owner: Account;
let observatoryId: string;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
  owner = await createAccount(server);
  ({ id: observatoryId } = await createObservatory(owner));
});
afterAll(() => server?.stop());
const { must, createObservatory } = jsonApi(() => server);

const deps = () => server.server.runtime.deps;
const createKey = async () =>
  (await must(`/observatories/${observatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as {
    id: string;
    key: string;
  };
const lastUsedAt = async (keyId: string) => {
  const [row] = await deps().db.execute<{ last_used_at: string | null }>(
    sql`select doc->>'lastUsedAt' as last_used_at from observatory_keys where id = ${keyId}`,
  );
  return row?.last_used_at ?? null;
};

describe("re-checking plugin keys together", () => {
  it("answers the hashes of the keys that still work: not a revoked one, not one that never was", async () => {
    const [kept, revoked] = [await createKey(), await createKey()];
    await must(`/observatories/${observatoryId}/api-keys/${revoked.id}`, { method: "DELETE", token: owner.token }, 204);
    const valid = await observatoryKeysStillValid({
      deps: deps(),
      keyHashes: [hashSecret(kept.key), hashSecret(revoked.key), hashSecret("mok_never_issued"), hashSecret(kept.key)],
    });
    expect(valid).toEqual(new Set([hashSecret(kept.key)]));
    expect(await observatoryKeysStillValid({ deps: deps(), keyHashes: [] })).toEqual(new Set());
  });

  it("records a key's use at most once a minute", async () => {
    const key = await createKey();
    expect(await lastUsedAt(key.id)).toBeNull();
    await observatoryKeysStillValid({ deps: deps(), keyHashes: [hashSecret(key.key)] });
    expect(await lastUsedAt(key.id)).not.toBeNull();
    // Within the minute: the re-check writes nothing.
    await deps().db.execute(
      sql`update observatory_keys set doc = doc || jsonb_build_object('lastUsedAt', ${new Date(Date.now() - 30_000).toISOString()}::text) where id = ${key.id}`,
    );
    const recent = await lastUsedAt(key.id);
    await observatoryKeysStillValid({ deps: deps(), keyHashes: [hashSecret(key.key)] });
    expect(await lastUsedAt(key.id)).toBe(recent);
    // Past it: recorded again.
    const old = new Date(Date.now() - 61_000).toISOString();
    await deps().db.execute(sql`update observatory_keys set doc = doc || jsonb_build_object('lastUsedAt', ${old}::text) where id = ${key.id}`);
    await observatoryKeysStillValid({ deps: deps(), keyHashes: [hashSecret(key.key)] });
    expect(new Date((await lastUsedAt(key.id))!).getTime()).toBeGreaterThan(new Date(old).getTime());
  });
});

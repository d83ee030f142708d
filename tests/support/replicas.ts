import { afterAll, beforeAll } from "vitest";
import { loginSession, roomyLimits } from "./auth-suite";
import { startTestServer, type TestServer } from "./test-server";

const HOUR = String(3_600_000);

/**
 * Two servers over one database, each with its own caches and LISTEN connections, as two
 * replicas would be; A has a server admin signed in. The cache lifetime is an hour, so only an
 * invalidation notice can explain a change that B sees after it was made through A.
 */
export function useReplicas(admin: { email: string; password: string }) {
  const replicas = { serverA: undefined as unknown as TestServer, serverB: undefined as unknown as TestServer, adminToken: "" };
  beforeAll(async () => {
    replicas.serverA = await startTestServer({
      ...roomyLimits,
      MERIDIAN_ROLE: "server",
      REQUEST_CACHE_TTL_MS: HOUR,
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
    });
    replicas.serverB = await startTestServer({
      ...roomyLimits,
      MERIDIAN_ROLE: "server",
      REQUEST_CACHE_TTL_MS: HOUR,
      DATABASE_URL: replicas.serverA.databaseUrl,
    });
    replicas.adminToken = (await loginSession(replicas.serverA, admin)).token;
  });
  afterAll(async () => {
    await replicas.serverB?.stop();
    await replicas.serverA?.stop();
  });
  return replicas;
}

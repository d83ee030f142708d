import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, loginSession, roomyLimits } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";
import { openWebSocket, type OpenClient } from "../support/ws-client";

// Two servers over one database, as two replicas. Caches live an hour, so only the
// invalidation notice can explain what server B does after a change made through server A.
const ADMIN = { email: "sockets-admin@example.com", password: "sockets admin password" };
const HOUR = String(3_600_000);
let serverA: TestServer;
let serverB: TestServer;
let adminToken: string;

beforeAll(async () => {
  serverA = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server", REQUEST_CACHE_TTL_MS: HOUR, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  serverB = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server", REQUEST_CACHE_TTL_MS: HOUR, DATABASE_URL: serverA.databaseUrl });
  adminToken = (await loginSession(serverA, ADMIN)).token;
});
afterAll(async () => {
  await serverB?.stop();
  await serverA?.stop();
});

const socketOnB = (token: string) => openWebSocket(`${serverB.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${token}` });
/** Resolves with the close code once the server closes the socket. */
const closed = (client: OpenClient) => new Promise<number>((resolve) => client.ws.once("close", (code) => resolve(code)));
const meOnB = async (token: string) => (await serverB.request("/api/v1/auth/me", { token })).status;
const ping = async (client: OpenClient) => {
  client.ws.send(JSON.stringify({ type: "ping" }));
  const before = client.messages.filter((message) => message.type === "pong").length;
  await client.waitFor(() => client.messages.filter((message) => message.type === "pong").length > before, "pong");
};

describe("ending a credential closes its WebSockets at once on every server", () => {
  it("logout through A closes the session's socket on B with 4401", async () => {
    const user = await createAccount(serverA);
    const session = await loginSession(serverA, user);
    const socket = await socketOnB(session.token);
    expect(await meOnB(session.token)).toBe(200);
    const code = closed(socket);
    expect((await serverA.request("/api/v1/auth/logout", { method: "POST", token: session.token })).status).toBe(204);
    expect(await code).toBe(4401);
    expect(await meOnB(session.token)).toBe(401);
  });

  it("revoking a session or an API key through A closes exactly those sockets on B", async () => {
    const user = await createAccount(serverA);
    const laptop = await loginSession(serverA, user);
    const key = await createApiKey(serverA, user.token);
    const laptopSocket = await socketOnB(laptop.token);
    const keySocket = await socketOnB(key.key);
    const keeper = await socketOnB(user.token);

    const sessions = (await (await serverA.request("/api/v1/user/sessions", { token: laptop.token })).json()) as { items: Array<{ id: string; current: boolean }> };
    const laptopId = sessions.items.find((item) => item.current)!.id;
    const laptopClosed = closed(laptopSocket);
    expect((await serverA.request(`/api/v1/user/sessions/${laptopId}`, { method: "DELETE", token: user.token })).status).toBe(204);
    expect(await laptopClosed).toBe(4401);

    const keyClosed = closed(keySocket);
    expect((await serverA.request(`/api/v1/user/api-keys/${key.id}`, { method: "DELETE", token: user.token })).status).toBe(204);
    expect(await keyClosed).toBe(4401);
    // The user's other session is untouched.
    await ping(keeper);
    await keeper.close();
  });

  it("a password change through A closes the other sessions' sockets on B and keeps the caller's", async () => {
    const user = await createAccount(serverA);
    const other = await loginSession(serverA, user);
    const otherSocket = await socketOnB(other.token);
    const ownSocket = await socketOnB(user.token);
    const otherClosed = closed(otherSocket);
    const response = await serverA.request("/api/v1/user/password", { method: "PUT", token: user.token, json: { currentPassword: user.password, newPassword: "changed on server A" } });
    expect(response.status).toBe(204);
    expect(await otherClosed).toBe(4401);
    await ping(ownSocket);
    expect(await meOnB(user.token)).toBe(200);
    expect(await meOnB(other.token)).toBe(401);
    await ownSocket.close();
  });

  it("disabling an account through A stops its session and key on B at once and closes their sockets", async () => {
    const user = await createAccount(serverA);
    const key = await createApiKey(serverA, user.token);
    // Both credentials are cached on B first.
    expect(await meOnB(user.token)).toBe(200);
    expect(await meOnB(key.key)).toBe(200);
    const sessionSocket = await socketOnB(user.token);
    const keySocket = await socketOnB(key.key);
    const codes = Promise.all([closed(sessionSocket), closed(keySocket)]);
    const disabled = await serverA.request(`/api/v1/admin/users/${user.id}`, { method: "PUT", token: adminToken, json: { disabled: true } });
    expect(disabled.status).toBe(200);
    expect(await codes).toEqual([4401, 4401]);
    expect(await meOnB(user.token)).toBe(401);
    expect(await meOnB(key.key)).toBe(401);
    const refused = await openWebSocket(`${serverB.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${key.key}` }).catch((error: Error) => error.message);
    expect(refused).toMatch(/401/);
  });
});

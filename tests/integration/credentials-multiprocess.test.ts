import { describe, expect, it } from "vitest";
import { createAccount, createApiKey, loginSession } from "../support/auth-suite";
import { useReplicas } from "../support/replicas";
import { openWebSocket, type OpenClient } from "../support/ws-client";

const ADMIN = { email: "sockets-admin@example.com", password: "sockets admin password" };
const replicas = useReplicas(ADMIN);

const socketOnB = (token: string) => openWebSocket(`${replicas.serverB.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${token}` });
/** Resolves with the close code once the server closes the socket. */
const closed = (client: OpenClient) => new Promise<number>((resolve) => client.ws.once("close", (code) => resolve(code)));
const meOnB = async (token: string) => (await replicas.serverB.request("/api/v1/auth/me", { token })).status;
const ping = async (client: OpenClient) => {
  client.ws.send(JSON.stringify({ type: "ping" }));
  const before = client.messages.filter((message) => message.type === "pong").length;
  await client.waitFor(() => client.messages.filter((message) => message.type === "pong").length > before, "pong");
};

describe("ending a credential closes its WebSockets at once on every server", () => {
  it("logout through A closes the session's socket on B with 4401", async () => {
    const user = await createAccount(replicas.serverA);
    const session = await loginSession(replicas.serverA, user);
    const socket = await socketOnB(session.token);
    expect(await meOnB(session.token)).toBe(200);
    const code = closed(socket);
    expect((await replicas.serverA.request("/api/v1/auth/logout", { method: "POST", token: session.token })).status).toBe(204);
    expect(await code).toBe(4401);
    expect(await meOnB(session.token)).toBe(401);
  });

  it("revoking a session or an API key through A closes exactly those sockets on B", async () => {
    const user = await createAccount(replicas.serverA);
    const laptop = await loginSession(replicas.serverA, user);
    const key = await createApiKey(replicas.serverA, user.token);
    const laptopSocket = await socketOnB(laptop.token);
    const keySocket = await socketOnB(key.key);
    const keeper = await socketOnB(user.token);

    const sessions = (await (await replicas.serverA.request("/api/v1/user/sessions", { token: laptop.token })).json()) as {
      items: Array<{ id: string; current: boolean }>;
    };
    const laptopId = sessions.items.find((item) => item.current)!.id;
    const laptopClosed = closed(laptopSocket);
    expect((await replicas.serverA.request(`/api/v1/user/sessions/${laptopId}`, { method: "DELETE", token: user.token })).status).toBe(204);
    expect(await laptopClosed).toBe(4401);

    const keyClosed = closed(keySocket);
    expect((await replicas.serverA.request(`/api/v1/user/api-keys/${key.id}`, { method: "DELETE", token: user.token })).status).toBe(204);
    expect(await keyClosed).toBe(4401);
    // The user's other session is untouched.
    await ping(keeper);
    await keeper.close();
  });

  it("a password change through A closes the other sessions' sockets on B and keeps the caller's", async () => {
    const user = await createAccount(replicas.serverA);
    const other = await loginSession(replicas.serverA, user);
    const otherSocket = await socketOnB(other.token);
    const ownSocket = await socketOnB(user.token);
    const otherClosed = closed(otherSocket);
    const response = await replicas.serverA.request("/api/v1/user/password", {
      method: "PUT",
      token: user.token,
      json: { currentPassword: user.password, newPassword: "changed on server A" },
    });
    expect(response.status).toBe(204);
    expect(await otherClosed).toBe(4401);
    await ping(ownSocket);
    expect(await meOnB(user.token)).toBe(200);
    expect(await meOnB(other.token)).toBe(401);
    await ownSocket.close();
  });

  it("disabling an account through A stops its session and key on B at once and closes their sockets", async () => {
    const user = await createAccount(replicas.serverA);
    const key = await createApiKey(replicas.serverA, user.token);
    // Both credentials are cached on B first.
    expect(await meOnB(user.token)).toBe(200);
    expect(await meOnB(key.key)).toBe(200);
    const sessionSocket = await socketOnB(user.token);
    const keySocket = await socketOnB(key.key);
    const codes = Promise.all([closed(sessionSocket), closed(keySocket)]);
    const disabled = await replicas.serverA.request(`/api/v1/admin/users/${user.id}`, { method: "PUT", token: replicas.adminToken, json: { disabled: true } });
    expect(disabled.status).toBe(200);
    expect(await codes).toEqual([4401, 4401]);
    expect(await meOnB(user.token)).toBe(401);
    expect(await meOnB(key.key)).toBe(401);
    const refused = await openWebSocket(`${replicas.serverB.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${key.key}` }).catch(
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/401/);
  });
});

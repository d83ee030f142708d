import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signupUser, startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

describe("platform smoke", () => {
  it("answers health with every check ok", async () => {
    const response = await server.request("/api/health");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.status).toBe("ok");
    expect(body.checks.database.status).toBe("ok");
    expect(body.checks.objectStorage.status).toBe("ok");
    expect(body.checks.worker.status).toBe("ok");
  });

  it("signs up and reads me with the token", async () => {
    const { token, user } = await signupUser(server);
    const response = await server.request("/api/v1/auth/me", { token });
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(user.id);
  });
});

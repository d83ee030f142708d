import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signupUser, startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

describe("platform smoke", () => {
  it("answers health with every check ok", async () => {
    // Each check is time-boxed to a second: on a loaded machine one answer may miss it, so wait for an ok one.
    const response = await until("health to answer ok", async () => {
      const answer = await server.request("/api/health");
      return answer.status === 200 ? answer : (await answer.body?.cancel(), undefined);
    });
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

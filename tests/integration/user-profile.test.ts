import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, roomyLimits, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

/** What a server without PUSH_APP_TOKEN (this file's) says of Pushover. */
const NO_PUSHOVER_TOKEN =
  "This server has no Pushover application token (PUSH_APP_TOKEN), so nothing is sent to Pushover. Ask the server's administrator to set it.";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
});
afterAll(() => server?.stop());

const getProfile = async (token: string) => {
  const response = await server.request("/api/v1/user/profile", { token });
  expect(response.status).toBe(200);
  return response.json();
};
const putProfile = (token: string, json: unknown) => server.request("/api/v1/user/profile", { method: "PUT", token, json });

describe("GET /api/v1/user/profile", () => {
  it("returns name and notification preferences, with the defaults for a new user", async () => {
    const account = await createAccount(server, { name: "Caroline Herschel" });
    const profile = await getProfile(account.token);
    expect(profile).toEqual({
      name: "Caroline Herschel",
      email: account.email,
      avatarUrl: null,
      notificationPreferences: { email: true, push: false, systemEvents: true, observationEvents: true },
      pushover: { configured: false, userKeyHint: null, devices: [], available: false, notice: NO_PUSHOVER_TOKEN },
    });
  });

  it("says plainly that this server has no Pushover token: in the profile, when a key is saved, and in the test result", async () => {
    const account = await createAccount(server);
    expect((await getProfile(account.token)).pushover).toMatchObject({ available: false, notice: NO_PUSHOVER_TOKEN });
    const saved = await server.request("/api/v1/user/pushover", {
      method: "PUT",
      token: account.token,
      json: { userKey: "k".repeat(10) + "abcdefghij1234567890", devices: [] },
    });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({ configured: true, userKeyHint: "…7890", devices: [], available: false, notice: NO_PUSHOVER_TOKEN });
    expect((await getProfile(account.token)).pushover).toMatchObject({ configured: true, available: false, notice: NO_PUSHOVER_TOKEN });
    const tested = await server.request("/api/v1/user/notifications/test", { method: "POST", token: account.token });
    expect(tested.status).toBe(200);
    expect(await tested.json()).toMatchObject({ pushover: "off", pushoverNotice: NO_PUSHOVER_TOKEN });
  });
});

describe("PUT /api/v1/user/profile", () => {
  let account: Account;
  beforeAll(async () => {
    account = await createAccount(server, { name: "Before" });
  });

  it("changes only the name when only the name is sent", async () => {
    const response = await putProfile(account.token, { name: "After" });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.name).toBe("After");
    expect(body.notificationPreferences).toEqual({ email: true, push: false, systemEvents: true, observationEvents: true });
    expect(await getProfile(account.token)).toEqual(body);
  });

  it("merges partial notification preferences into the stored ones", async () => {
    const first = await (await putProfile(account.token, { notificationPreferences: { push: true } })).json();
    expect(first.notificationPreferences).toEqual({ email: true, push: true, systemEvents: true, observationEvents: true });
    const second = await (await putProfile(account.token, { notificationPreferences: { email: false, observationEvents: false } })).json();
    expect(second.notificationPreferences).toEqual({ email: false, push: true, systemEvents: true, observationEvents: false });
    expect(second.name).toBe("After");
    expect((await getProfile(account.token)).notificationPreferences).toEqual(second.notificationPreferences);
  });

  it("sets name and preferences together", async () => {
    const body = await (await putProfile(account.token, { name: "Both", notificationPreferences: { systemEvents: false } })).json();
    expect(body).toMatchObject({ name: "Both", notificationPreferences: { email: false, push: true, systemEvents: false, observationEvents: false } });
  });

  it("accepts an empty object and changes nothing", async () => {
    const before = await getProfile(account.token);
    const response = await putProfile(account.token, {});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(before);
  });

  it("accepts an empty preferences object and changes nothing", async () => {
    const before = await getProfile(account.token);
    expect(await (await putProfile(account.token, { notificationPreferences: {} })).json()).toEqual(before);
  });

  it("trims the name and keeps unicode intact", async () => {
    const body = await (await putProfile(account.token, { name: "  Ñandú 🦤 ‏עברית  " })).json();
    expect(body.name).toBe("Ñandú 🦤 ‏עברית");
  });

  it("does not change the email", async () => {
    const body = await (await putProfile(account.token, { name: "Still me" })).json();
    expect(body.email).toBe(account.email);
  });

  it("touches only the caller's profile", async () => {
    const other = await createAccount(server, { name: "Untouched" });
    await putProfile(account.token, { name: "Changed", notificationPreferences: { email: true } });
    expect(await getProfile(other.token)).toMatchObject({ name: "Untouched", notificationPreferences: { email: true, push: false } });
  });

  it("shows the new name in /auth/me", async () => {
    await putProfile(account.token, { name: "Visible" });
    expect((await (await server.request("/api/v1/auth/me", { token: account.token })).json()).name).toBe("Visible");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";

/** What a server without PUSH_APP_TOKEN (this file's) says of Pushover. */
const NO_PUSHOVER_TOKEN =
  "This server has no Pushover application token (PUSH_APP_TOKEN), so nothing is sent to Pushover. Ask the server's administrator to set it.";

// The profile's rules (defaults, partial merges, trimming, whose profile) are the domain's: through the app
// router's caller, on a runtime without HTTP. The REST faces' statuses and bodies are walked by api-bad-input,
// output-on-both-faces and the operation walks.
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

const createAccount = (fields: { name?: string } = {}) => runtime.signup(fields);
const getProfile = (account: CallerAccount) => account.caller.user.profile();
const putProfile = (account: CallerAccount, update: Parameters<CallerAccount["caller"]["user"]["updateProfile"]>[0]) =>
  account.caller.user.updateProfile(update);

describe("user.profile (GET /api/v1/user/profile)", () => {
  it("returns name and notification preferences, with the defaults for a new user", async () => {
    const account = await createAccount({ name: "Caroline Herschel" });
    const profile = await getProfile(account);
    expect(profile).toEqual({
      name: "Caroline Herschel",
      email: account.email,
      avatarUrl: null,
      notificationPreferences: { email: true, push: false, systemEvents: true, observationEvents: true },
      pushover: { configured: false, userKeyHint: null, devices: [], available: false, notice: NO_PUSHOVER_TOKEN },
    });
  });

  it("says plainly that this server has no Pushover token: in the profile, when a key is saved, and in the test result", async () => {
    const account = await createAccount();
    expect((await getProfile(account)).pushover).toMatchObject({ available: false, notice: NO_PUSHOVER_TOKEN });
    const saved = await account.caller.user.setPushover({ userKey: "k".repeat(10) + "abcdefghij1234567890", devices: [] });
    expect(saved).toEqual({ configured: true, userKeyHint: "…7890", devices: [], available: false, notice: NO_PUSHOVER_TOKEN });
    expect((await getProfile(account)).pushover).toMatchObject({ configured: true, available: false, notice: NO_PUSHOVER_TOKEN });
    const tested = await account.caller.user.testNotification();
    expect(tested).toMatchObject({ pushover: "off", pushoverNotice: NO_PUSHOVER_TOKEN });
  });
});

describe("user.updateProfile (PUT /api/v1/user/profile)", () => {
  let account: CallerAccount;
  beforeAll(async () => {
    account = await createAccount({ name: "Before" });
  });

  it("changes only the name when only the name is sent", async () => {
    const body = await putProfile(account, { name: "After" });
    expect(body.name).toBe("After");
    expect(body.notificationPreferences).toEqual({ email: true, push: false, systemEvents: true, observationEvents: true });
    expect(await getProfile(account)).toEqual(body);
  });

  it("merges partial notification preferences into the stored ones", async () => {
    const first = await putProfile(account, { notificationPreferences: { push: true } });
    expect(first.notificationPreferences).toEqual({ email: true, push: true, systemEvents: true, observationEvents: true });
    const second = await putProfile(account, { notificationPreferences: { email: false, observationEvents: false } });
    expect(second.notificationPreferences).toEqual({ email: false, push: true, systemEvents: true, observationEvents: false });
    expect(second.name).toBe("After");
    expect((await getProfile(account)).notificationPreferences).toEqual(second.notificationPreferences);
  });

  it("sets name and preferences together", async () => {
    const body = await putProfile(account, { name: "Both", notificationPreferences: { systemEvents: false } });
    expect(body).toMatchObject({ name: "Both", notificationPreferences: { email: false, push: true, systemEvents: false, observationEvents: false } });
  });

  it("accepts an empty object and changes nothing", async () => {
    const before = await getProfile(account);
    expect(await putProfile(account, {})).toEqual(before);
  });

  it("accepts an empty preferences object and changes nothing", async () => {
    const before = await getProfile(account);
    expect(await putProfile(account, { notificationPreferences: {} })).toEqual(before);
  });

  it("trims the name and keeps unicode intact", async () => {
    const body = await putProfile(account, { name: "  Ñandú 🦤 ‏עברית  " });
    expect(body.name).toBe("Ñandú 🦤 ‏עברית");
  });

  it("does not change the email", async () => {
    const body = await putProfile(account, { name: "Still me" });
    expect(body.email).toBe(account.email);
  });

  it("touches only the caller's profile", async () => {
    const other = await createAccount({ name: "Untouched" });
    await putProfile(account, { name: "Changed", notificationPreferences: { email: true } });
    expect(await getProfile(other)).toMatchObject({ name: "Untouched", notificationPreferences: { email: true, push: false } });
  });

  it("shows the new name in auth.me", async () => {
    await putProfile(account, { name: "Visible" });
    expect((await account.caller.auth.me())?.name).toBe("Visible");
  });
});

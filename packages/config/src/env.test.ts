import path from "node:path";
import { describe, expect, it } from "vitest";
import { EnvError, loadEnv } from "./env";

describe("loadEnv", () => {
  it("applies the contract's defaults", () => {
    const env = loadEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATA_DIR).toBe(path.resolve("./.data"));
    expect(env.SIGNUP_ENABLED).toBe(true);
    expect(env.LOGIN_FAILURES_PER_EMAIL).toBe(10);
    expect(env.LOGIN_FAILURES_PER_IP).toBe(50);
    expect(env.SIGNUPS_PER_IP_PER_HOUR).toBe(20);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.S3_ENDPOINT).toBeUndefined();
  });

  it("parses booleans and numbers from strings", () => {
    const env = loadEnv({ SIGNUP_ENABLED: "false", PORT: "8080", S3_FORCE_PATH_STYLE: "0" });
    expect(env.SIGNUP_ENABLED).toBe(false);
    expect(env.PORT).toBe(8080);
    expect(env.S3_FORCE_PATH_STYLE).toBe(false);
  });

  it("hashes passwords at OWASP's cost unless a test run asks for the cheap one, which nothing else may", () => {
    expect(loadEnv({}).PASSWORD_HASHING).toBe("owasp");
    expect(loadEnv({ NODE_ENV: "test", PASSWORD_HASHING: "fast-for-tests" }).PASSWORD_HASHING).toBe("fast-for-tests");
    for (const NODE_ENV of ["production", "development"])
      expect(() => loadEnv({ NODE_ENV, PASSWORD_HASHING: "fast-for-tests" })).toThrow(/PASSWORD_HASHING=fast-for-tests is for NODE_ENV=test only/);
  });

  it("treats blank values as unset", () => {
    expect(loadEnv({ DATABASE_URL: "  ", SMTP_URL: "" }).DATABASE_URL).toBeUndefined();
  });

  it("refuses invalid values with every problem named", () => {
    expect(() => loadEnv({ PORT: "http", SIGNUP_ENABLED: "maybe" })).toThrow(EnvError);
    try {
      loadEnv({ PORT: "http", SIGNUP_ENABLED: "maybe" });
    } catch (error) {
      expect((error as Error).message).toContain("PORT");
      expect((error as Error).message).toContain("SIGNUP_ENABLED");
    }
  });

  it("keeps Node's keep-alive and shutdown timings unless told, within bounds", () => {
    expect(loadEnv({})).toMatchObject({ HTTP_KEEP_ALIVE_TIMEOUT_MS: 5_000, SHUTDOWN_IDLE_GRACE_MS: 1_500 });
    expect(loadEnv({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "65000", SHUTDOWN_IDLE_GRACE_MS: "0" })).toMatchObject({
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 65_000,
      SHUTDOWN_IDLE_GRACE_MS: 0,
    });
    expect(() => loadEnv({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "999" })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT_MS/);
    expect(() => loadEnv({ SHUTDOWN_IDLE_GRACE_MS: "10001" })).toThrow(/SHUTDOWN_IDLE_GRACE_MS/);
  });

  it("keeps the audit log a year unless told, and never less than 30 days", () => {
    expect(loadEnv({}).AUDIT_LOG_KEEP_DAYS).toBe(365);
    expect(loadEnv({ AUDIT_LOG_KEEP_DAYS: "30" }).AUDIT_LOG_KEEP_DAYS).toBe(30);
    expect(() => loadEnv({ AUDIT_LOG_KEEP_DAYS: "29" })).toThrow(/AUDIT_LOG_KEEP_DAYS/);
    expect(loadEnv({}).ANNOUNCEMENTS_KEEP_DAYS).toBe(365);
    expect(loadEnv({ ANNOUNCEMENTS_KEEP_DAYS: "30" }).ANNOUNCEMENTS_KEEP_DAYS).toBe(30);
    expect(() => loadEnv({ ANNOUNCEMENTS_KEEP_DAYS: "29" })).toThrow(/ANNOUNCEMENTS_KEEP_DAYS/);
  });

  it("reads REASSIGN_AFTER_MINUTES in minutes, 10 unless told, a fraction of one down to 0.1", () => {
    expect(loadEnv({}).REASSIGN_AFTER_MINUTES).toBe(10);
    expect(loadEnv({ REASSIGN_AFTER_MINUTES: "1" }).REASSIGN_AFTER_MINUTES).toBe(1);
    expect(loadEnv({ REASSIGN_AFTER_MINUTES: "0.5" }).REASSIGN_AFTER_MINUTES).toBe(0.5);
    expect(loadEnv({ REASSIGN_AFTER_MINUTES: "0.1" }).REASSIGN_AFTER_MINUTES).toBe(0.1);
    for (const refused of ["0.09", "0", "-1", "1441", "soon"]) expect(() => loadEnv({ REASSIGN_AFTER_MINUTES: refused })).toThrow(/REASSIGN_AFTER_MINUTES/);
  });

  it("requires a shared SECRETS_KEY with an external database", () => {
    expect(() => loadEnv({ DATABASE_URL: "postgres://db/meridian" })).toThrow(/SECRETS_KEY/);
    expect(loadEnv({ DATABASE_URL: "postgres://db/meridian", SECRETS_KEY: "k" }).SECRETS_KEY).toBe("k");
  });

  it("requires ADMIN_EMAIL and ADMIN_PASSWORD together and a real password", () => {
    expect(() => loadEnv({ ADMIN_EMAIL: "root@example.com" })).toThrow(/together/);
    expect(() => loadEnv({ ADMIN_EMAIL: "root@example.com", ADMIN_PASSWORD: "short" })).toThrow(/8 characters/);
    expect(loadEnv({ ADMIN_EMAIL: "root@example.com", ADMIN_PASSWORD: "long enough" }).ADMIN_EMAIL).toBe("root@example.com");
  });
});

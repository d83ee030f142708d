import { describe, expect, it } from "vitest";
import { apiKeyCreateSchema, loginInputSchema, signupInputSchema } from "./schemas";
import { displayNameSchema, emailSchema, opaqueIdSchema, passwordSchema, profileUpdateSchema } from "../users";

describe("displayNameSchema", () => {
  it.each(["Ada", "  padded  ", "李白", "Zoë 🔭", "\u200fשלום", "a\u200bb", "𝕄"])("accepts %j", (name) => {
    expect(displayNameSchema.safeParse(name)).toMatchObject({ success: true, data: name.trim() });
  });

  it.each(["", "   ", "a\u0000b", "bell\u0007", "line\nbreak", "x\ud800", "\udfffx", "n".repeat(101)])("refuses %j", (name) => {
    expect(displayNameSchema.safeParse(name).success).toBe(false);
  });
});

describe("emailSchema", () => {
  it("trims", () => {
    expect(emailSchema.parse("  a@example.com ")).toBe("a@example.com");
  });

  it.each(["", "plain", "a@", "@example.com", "a\u0000@example.com", "🔭@example.com", `${"a".repeat(250)}@example.com`])("refuses %j", (email) => {
    expect(emailSchema.safeParse(email).success).toBe(false);
  });
});

describe("passwordSchema", () => {
  it("needs at least 8 and at most 256 characters", () => {
    expect(passwordSchema.safeParse("1234567").success).toBe(false);
    expect(passwordSchema.safeParse("12345678").success).toBe(true);
    expect(passwordSchema.safeParse("p".repeat(256)).success).toBe(true);
    expect(passwordSchema.safeParse("p".repeat(257)).success).toBe(false);
  });
});

describe("opaqueIdSchema", () => {
  it.each(["usr_00mwr4vx2os4d-N27Qm8HHaQ", "key_x", "🔭"])("accepts %j", (id) => {
    expect(opaqueIdSchema.safeParse(id).success).toBe(true);
  });

  it.each(["", "\u0000", "a\u0000", "a\nb", "\ud800", "x".repeat(101)])("refuses %j", (id) => {
    expect(opaqueIdSchema.safeParse(id).success).toBe(false);
  });
});

describe("input schemas", () => {
  it("signup refuses unknown fields", () => {
    expect(signupInputSchema.safeParse({ email: "a@example.com", password: "12345678", name: "A", roles: ["serverAdmin"] }).success).toBe(false);
  });

  it("login refuses control characters and lone surrogates in the email", () => {
    expect(loginInputSchema.safeParse({ email: "a\u0000@example.com", password: "x" }).success).toBe(false);
    expect(loginInputSchema.safeParse({ email: "a\ud800@example.com", password: "x" }).success).toBe(false);
    expect(loginInputSchema.safeParse({ email: "anything-goes@example", password: "x" }).success).toBe(true);
  });

  it("API key names refuse lone surrogates and control characters but keep emoji", () => {
    expect(apiKeyCreateSchema.safeParse({ name: "k\ud800" }).success).toBe(false);
    expect(apiKeyCreateSchema.safeParse({ name: "k\u0000" }).success).toBe(false);
    expect(apiKeyCreateSchema.parse({ name: " 🔭 key " })).toEqual({ name: "🔭 key" });
  });

  it("profile updates are partial but strict", () => {
    expect(profileUpdateSchema.parse({})).toEqual({});
    expect(profileUpdateSchema.parse({ notificationPreferences: { push: true } })).toEqual({ notificationPreferences: { push: true } });
    expect(profileUpdateSchema.safeParse({ notificationPreferences: { sms: true } }).success).toBe(false);
    expect(profileUpdateSchema.safeParse({ email: "new@example.com" }).success).toBe(false);
  });
});

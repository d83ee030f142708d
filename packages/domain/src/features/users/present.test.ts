import type { StoredDocument, UserDoc } from "@meridian/db";
import { describe, expect, it } from "vitest";
import { presentUser } from "./present";

const stored = (doc: Partial<UserDoc> = {}): StoredDocument<UserDoc> => ({
  id: "2b7e1c0a-4f7e-4a51-9d43-7f3f4c1a9e10",
  doc: {
    email: "ada@example.com",
    name: "Ada",
    passwordHash: "not a real hash",
    roles: [],
    notificationPreferences: {} as UserDoc["notificationPreferences"],
    avatar: null,
    ...doc,
  },
  createdAt: new Date("2026-11-01T10:00:00.000Z"),
  updatedAt: new Date("2026-11-01T10:00:00.000Z"),
});

describe("presentUser", () => {
  it("shows what a user may see of an account, never its password hash", () => {
    expect(presentUser(stored())).toEqual({
      id: "2b7e1c0a-4f7e-4a51-9d43-7f3f4c1a9e10",
      email: "ada@example.com",
      name: "Ada",
      roles: [],
      avatarUrl: null,
      createdAt: "2026-11-01T10:00:00.000Z",
    });
  });

  it("answers the same stored user with the same frozen object, so no caller can change what the next one gets", () => {
    const user = stored();
    const first = presentUser(user);
    expect(presentUser(user)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it("shows a changed user's new fields: a change is a new stored object", () => {
    const user = stored();
    expect(presentUser(user).name).toBe("Ada");
    const renamed = { ...user, doc: { ...user.doc, name: "Ada Lovelace", roles: ["serverAdmin" as const] } };
    expect(presentUser(renamed)).toMatchObject({ name: "Ada Lovelace", roles: ["serverAdmin"] });
  });
});

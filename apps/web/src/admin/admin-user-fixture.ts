import type { AdminUser } from "./user-changes";

/** An enabled account without roles, as `admin.users` lists it, its email `<id>@example.com`; `fields` override. */
export const adminAccount = (id: string, name: string, fields: Partial<AdminUser> = {}): AdminUser => ({
  id,
  name,
  email: `${id}@example.com`,
  roles: [],
  disabled: false,
  createdAt: "2026-11-01T10:00:00.000Z",
  lastLoginAt: null,
  ...fields,
});

import type { Observatory } from "./permissions";

/** An observatory as `observatories.get` answers it, owned by `usr_owner`, dispatch on; `fields` override. */
export function observatoryFixture(fields: Partial<Observatory> = {}): Observatory {
  return {
    id: "oby_1",
    name: "Dome 1",
    owner: { kind: "user", id: "usr_owner", name: "Owner Olga" },
    dispatchEnabled: true,
    timeZone: "UTC",
    locationTimeZone: null,
    settings: { slewSeconds: 120, readoutSeconds: 10 },
    connection: { online: false },
    filters: null,
    createdAt: "2026-11-01T10:00:00.000Z",
    myPermissions: { can_view: true, can_observe: false, can_operate: false, can_admin: false },
    ...fields,
  } as Observatory;
}

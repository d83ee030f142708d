import type { Answer } from "../test-support/api";

/** Every organization permission granted, or none (the deprecated billing one is stored and answered, and shown nowhere). */
export const managing = (granted: boolean) => ({
  can_manage_members: granted,
  can_manage_projects: granted,
  can_manage_observatories: granted,
  can_manage_storage: granted,
  can_manage_billing: granted,
});

/** Orion Society as `organizations.get` answers it, owned by `usr_bob`, without external storage; `fields` override. */
export const orionFixture = (fields: Answer<"organizations.get"> = {}): Answer<"organizations.get"> => ({
  id: "org_orion",
  name: "Orion Society",
  shortName: "orion",
  type: "research_institute",
  description: null,
  contactEmail: "office@orion.example.org",
  ownerId: "usr_bob",
  externalStorage: [],
  ...fields,
});

import type { Observatory } from "./permissions";

/**
 * "You", or the owner's name: the API gives it to those who may view the observatory (members and
 * server admins). Without it, an organization of the caller's by name, else a generic word.
 */
export function ownerDescription(owner: Observatory["owner"], meId: string | undefined, organizationName: (id: string) => string | undefined): string {
  if (owner.kind === "user") return owner.id === meId ? "You" : (owner.name ?? "Another user");
  return owner.name ?? organizationName(owner.id) ?? "An organization";
}

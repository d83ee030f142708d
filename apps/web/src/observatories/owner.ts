import type { Observatory } from "./permissions";

/** "You", "Orion Society" or a generic word when the caller cannot know the owner's name. */
export function ownerDescription(owner: Observatory["owner"], meId: string | undefined, organizationName: (id: string) => string | undefined): string {
  if (owner.kind === "user") return owner.id === meId ? "You" : "Another user";
  return organizationName(owner.id) ?? "An organization";
}

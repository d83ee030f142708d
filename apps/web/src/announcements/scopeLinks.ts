import type { ScopedKind } from "./types";

const scopePaths: Record<ScopedKind, string> = { observatory: "observatories", organization: "organizations", project: "projects" };

/** The page of the observatory, organization or project an announcement belongs to. */
export const scopePath = (scope: ScopedKind, scopeId: string) => `/${scopePaths[scope]}/${scopeId}`;

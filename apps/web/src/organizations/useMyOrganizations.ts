import { useQueries, useQuery } from "@tanstack/react-query";
import { trpc } from "../trpc";
import type { Organization } from "./types";

/** The caller's organizations (not every one, even for a server admin). */
export function useMyOrganizations(enabled = true) {
  return useQuery(trpc.organizations.list.queryOptions(undefined, { enabled }));
}

/**
 * The caller's organizations with their role and permissions there, for choosing an owner
 * or an organization for something new. One `get` per organization: people belong to few.
 */
export function useMyOrganizationAccess(enabled = true) {
  const list = useMyOrganizations(enabled);
  const details = useQueries({
    queries: (list.data?.items ?? []).map((organization) => trpc.organizations.get.queryOptions({ id: organization.id }, { enabled })),
  });
  const organizations = details.flatMap((query) => (query.data ? [query.data] : []));
  return {
    organizations,
    isPending: list.isPending || details.some((query) => query.isPending),
    error: list.error ?? details.find((query) => query.error)?.error ?? null,
  };
}

/** May the caller create observatories (or projects) owned by this organization? */
export const canCreateFor = (organization: Organization, permission: "can_manage_observatories" | "can_manage_projects") =>
  organization.myPermissions[permission];

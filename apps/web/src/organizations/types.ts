import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../trpc";

/** What the tRPC procedures return and accept, inferred from the server's router (types only). */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type RouterInputs = inferRouterInputs<AppRouter>;

export type Organization = RouterOutputs["organizations"]["get"];
export type OrganizationSummary = RouterOutputs["organizations"]["list"]["items"][number];
export type OrganizationMember = RouterOutputs["organizations"]["members"]["items"][number];
export type OrganizationType = Organization["type"];
export type OrganizationPermissionKey = keyof OrganizationMember["permissions"];
export type OrganizationPermissions = OrganizationMember["permissions"];
export type ExternalStorageDestination = Organization["externalStorage"][number];
export type ExternalStorageKind = ExternalStorageDestination["kind"];
export type AuditEntry = RouterOutputs["organizations"]["audit"]["items"][number];

import { externalStorageKinds, organizationPermissionKeys, organizationTypes } from "@meridian/db";
import { z } from "zod";
import { emailSchema, opaqueIdSchema, withoutControlCharacters } from "../users";
import { issuePredicate, SHORT_NAME_PATTERN, SHORT_NAME_PREDICATE } from "@meridian/rules";
import { storageSecretsSchemas, storageSettingsSchemas } from "@meridian/rules/storage";

// Control characters and lone surrogates cannot be stored (PostgreSQL refuses them in jsonb): 400, not 500.
const text = (max: number) => withoutControlCharacters(z.string().trim().min(1).max(max));

const shortNameSchema = z.string().trim().regex(SHORT_NAME_PATTERN, SHORT_NAME_PREDICATE);

export const organizationPermissionsInputSchema = z
  .strictObject(
    Object.fromEntries(organizationPermissionKeys.map((key) => [key, z.boolean().optional()])) as Record<
      (typeof organizationPermissionKeys)[number],
      z.ZodOptional<z.ZodBoolean>
    >,
  )
  .meta({ id: "OrganizationPermissionsInput" });

export const organizationPermissionsOutputSchema = z.object(
  Object.fromEntries(organizationPermissionKeys.map((key) => [key, z.boolean()])) as Record<(typeof organizationPermissionKeys)[number], z.ZodBoolean>,
);

const destinationFields = {
  id: opaqueIdSchema.optional().describe("Keep an existing destination: its settings and secrets stay unless new ones are sent"),
  label: text(100),
};
const settingsOf = <K extends ExternalStorageKind>(kind: K) =>
  storageSettingsSchemas[kind]
    .optional()
    .describe(
      "Non-secret settings, returned as stored (text trimmed); they replace the stored ones. " +
        "Required for a new destination or a changed kind; unknown keys are refused",
    );
const secretsOf = <K extends ExternalStorageKind>(kind: K) =>
  storageSecretsSchemas[kind]
    .optional()
    .describe(
      "Write-only: stored encrypted, never returned. They replace every stored secret, so each is required. " +
        "Required for a new destination or a changed kind; unknown names are refused",
    );
type ExternalStorageKind = (typeof externalStorageKinds)[number];

/** An unknown or missing `kind` reads as the enum it is, at `kind`. */
const kindProblem = (issue: { code?: string; input?: unknown }) => {
  if (issue.code !== "invalid_union") return undefined;
  const kind = issue.input && typeof issue.input === "object" ? (issue.input as { kind?: unknown }).kind : undefined;
  return kind === undefined ? "is required" : issuePredicate({ code: "invalid_value", values: externalStorageKinds });
};

/** One destination as sent: its kind decides what its settings and secrets hold (docs/api-contract.md, "Delivery to organization storage"). */
const externalStorageInputSchema = z.discriminatedUnion(
  "kind",
  [
    z.strictObject({ ...destinationFields, kind: z.literal("google_drive"), settings: settingsOf("google_drive"), secrets: secretsOf("google_drive") }),
    z.strictObject({ ...destinationFields, kind: z.literal("dropbox"), settings: settingsOf("dropbox"), secrets: secretsOf("dropbox") }),
    z.strictObject({ ...destinationFields, kind: z.literal("s3"), settings: settingsOf("s3"), secrets: secretsOf("s3") }),
  ],
  { error: kindProblem },
);

const externalStorageOutputSchema = z.object({
  id: z.string(),
  kind: z.enum(externalStorageKinds),
  label: z.string(),
  settings: z.record(z.string(), z.unknown()),
  configuredSecrets: z.array(z.string()).describe("Names of the secrets stored for this destination"),
});

export const organizationCreateSchema = z
  .strictObject({
    name: text(200),
    shortName: shortNameSchema,
    type: z.enum(organizationTypes),
    description: withoutControlCharacters(z.string().trim().max(5000)).nullable().optional(),
    contactEmail: emailSchema,
  })
  .meta({ id: "OrganizationCreate" });
export type OrganizationCreate = z.infer<typeof organizationCreateSchema>;

export const organizationUpdateSchema = z
  .strictObject({
    name: text(200).optional(),
    shortName: shortNameSchema.optional(),
    type: z.enum(organizationTypes).optional(),
    description: withoutControlCharacters(z.string().trim().max(5000)).nullable().optional(),
    contactEmail: emailSchema.optional(),
    externalStorage: z.array(externalStorageInputSchema).max(20).optional(),
  })
  .meta({ id: "OrganizationUpdate" });
export type OrganizationUpdate = z.infer<typeof organizationUpdateSchema>;

export const organizationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    shortName: z.string(),
    type: z.enum(organizationTypes),
    description: z.string().nullable(),
    contactEmail: z.string(),
    ownerId: z.string(),
    externalStorage: z.array(externalStorageOutputSchema),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Organization" });

/** One organization as its reader sees it: with the caller's own permissions and role (extensions the app uses). */
export const organizationDetailSchema = organizationSchema
  .extend({
    myPermissions: organizationPermissionsOutputSchema.describe("The caller's permissions in the organization (extension)"),
    myRole: z.enum(["owner", "member"]).nullable().describe("The caller's role; null for a server admin who is not a member (extension)"),
  })
  .meta({ id: "OrganizationDetail" });

export const organizationMemberSchema = z
  .object({
    userId: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(["owner", "member"]),
    permissions: organizationPermissionsOutputSchema,
    joinedAt: z.string(),
  })
  .meta({ id: "OrganizationMember" });

export const addOrganizationMemberSchema = z
  .strictObject({ email: emailSchema, permissions: organizationPermissionsInputSchema.optional() })
  .meta({ id: "AddOrganizationMember" });

export const updateOrganizationMemberSchema = z.strictObject({ permissions: organizationPermissionsInputSchema }).meta({ id: "UpdateOrganizationMember" });

export const transferOrganizationSchema = z.strictObject({ userId: opaqueIdSchema }).meta({ id: "TransferOrganization" });

import { observatoryPermissionKeys } from "@meridian/db";
import { isTimeZone, observatoryTimingBounds, TIME_ZONE_PREDICATE } from "@meridian/rules";
import { z } from "zod";
import { emailSchema, opaqueIdSchema, withoutControlCharacters } from "../users";

const permissionShape = Object.fromEntries(observatoryPermissionKeys.map((key) => [key, z.boolean()])) as Record<
  (typeof observatoryPermissionKeys)[number],
  z.ZodBoolean
>;
export const observatoryPermissionsOutputSchema = z.object(permissionShape).meta({ id: "ObservatoryPermissions" });
export const observatoryPermissionsInputSchema = z
  .strictObject(
    Object.fromEntries(observatoryPermissionKeys.map((key) => [key, z.boolean().optional()])) as Record<
      (typeof observatoryPermissionKeys)[number],
      z.ZodOptional<z.ZodBoolean>
    >,
  )
  .meta({ id: "ObservatoryPermissionsInput" });

const locationSchema = z.strictObject({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  elevation: z.number().min(-500).max(10_000),
});

const timeZoneInputSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine(isTimeZone, TIME_ZONE_PREDICATE)
  .nullable()
  .optional()
  .describe(
    "IANA time zone name (`Atlantic/Canary`), stored as Intl writes it; null, or a location that moves while no zone is given, derives it " +
      "from the location again (UTC without one)",
  );

const { slewSeconds, readoutSeconds } = observatoryTimingBounds;
const observatorySettingsInputSchema = z
  .strictObject({
    slewSeconds: z.number().min(slewSeconds.min).max(slewSeconds.max).optional().describe("Seconds to slew to each target (default 120)"),
    readoutSeconds: z.number().min(readoutSeconds.min).max(readoutSeconds.max).optional().describe("Seconds to read out each exposure (default 10)"),
  })
  .meta({ id: "ObservatorySettingsInput" });

export const observatoryCreateSchema = z
  .strictObject({
    name: withoutControlCharacters(z.string().trim().min(1).max(200)),
    organizationId: opaqueIdSchema.optional(),
    location: locationSchema.nullable().optional(),
    dispatchEnabled: z.boolean().optional(),
    timeZone: timeZoneInputSchema,
    settings: observatorySettingsInputSchema.optional(),
  })
  .meta({ id: "ObservatoryCreate" });
export type ObservatoryCreate = z.infer<typeof observatoryCreateSchema>;

export const observatoryUpdateSchema = z
  .strictObject({
    name: withoutControlCharacters(z.string().trim().min(1).max(200)).optional(),
    location: locationSchema.nullable().optional(),
    dispatchEnabled: z.boolean().optional(),
    timeZone: timeZoneInputSchema,
    settings: observatorySettingsInputSchema.optional(),
  })
  .meta({ id: "ObservatoryUpdate" });
export type ObservatoryUpdate = z.infer<typeof observatoryUpdateSchema>;

export const observatorySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    owner: z.object({
      kind: z.enum(["user", "organization"]),
      id: z.string(),
      name: z.string().optional().describe("The owner's name, in lists and reads of the observatory (extension)"),
    }),
    location: z.object({ latitude: z.number(), longitude: z.number(), elevation: z.number() }).optional(),
    dispatchEnabled: z.boolean(),
    timeZone: z.string().describe("IANA time zone name: the one set, else derived from the location, else UTC"),
    locationTimeZone: z
      .string()
      .describe("The zone its location lies in (UTC without one): what `timeZone` becomes when it is derived, for forms to show (extension)"),
    settings: z
      .object({ slewSeconds: z.number(), readoutSeconds: z.number() })
      .describe("What estimates (`estimatedSeconds` of its observations) assume, defaults filled in"),
    connection: z.object({ online: z.boolean(), pluginVersion: z.string().optional(), lastSeenAt: z.string().optional() }),
    conditions: z
      .object({ safe: z.boolean(), safetyReason: z.string().nullable(), weatherHold: z.boolean(), weatherReason: z.string().nullable() })
      .optional()
      .describe("What the plugin last reported of safety and weather (extension); absent until it reports"),
    filters: z
      .array(z.string())
      .nullable()
      .describe(
        "The filters its plugin last reported (`equipment.filters`, extension): exposures sent here must ask for one of them (names compared " +
          "case-insensitively). null when it never reported any, or its last equipment report named none: then no filter is refused",
      ),
    createdAt: z.string(),
    myPermissions: observatoryPermissionsOutputSchema.optional().describe("The caller's effective permissions (extension)"),
  })
  .meta({ id: "Observatory" });

export const observatoryTransferSchema = z.strictObject({ kind: z.enum(["user", "organization"]), id: opaqueIdSchema }).meta({ id: "ObservatoryTransfer" });

export const addObservatoryUserSchema = z
  .strictObject({ email: emailSchema, permissions: observatoryPermissionsInputSchema.optional() })
  .meta({ id: "AddObservatoryUser" });
export const addObservatoryOrganizationSchema = z
  .strictObject({ organizationId: opaqueIdSchema, permissions: observatoryPermissionsInputSchema.optional() })
  .meta({ id: "AddObservatoryOrganization" });
export const updateObservatoryPermissionsSchema = z
  .strictObject({ permissions: observatoryPermissionsInputSchema })
  .meta({ id: "UpdateObservatoryPermissions" });

export const observatoryMembersSchema = z
  .object({
    users: z.array(
      z.object({
        userId: z.string(),
        email: z.string(),
        name: z.string(),
        permissions: observatoryPermissionsOutputSchema,
        source: z.enum(["direct", "owner"]),
      }),
    ),
    organizations: z.array(z.object({ organizationId: z.string(), name: z.string(), permissions: observatoryPermissionsOutputSchema, owning: z.boolean() })),
  })
  .meta({ id: "ObservatoryMembers" });

export const myObservatoryPermissionsSchema = observatoryPermissionsOutputSchema
  .extend({
    sources: z.array(
      z.object({
        kind: z.enum(["serverAdmin", "owner", "direct", "organization"]),
        organizationId: z.string().optional(),
        role: z.string().optional(),
        permissions: observatoryPermissionsOutputSchema,
      }),
    ),
  })
  .meta({ id: "MyObservatoryPermissions" });

export const observatoryHistorySchema = z
  .object({
    items: z.array(
      z.object({
        id: z.string().describe("The entry's id (extension)"),
        type: z.string(),
        at: z.string(),
        actorId: z.string().nullable(),
        actorName: z
          .string()
          .nullable()
          .describe("The actor's name as the account now reads (extension); null for the system (`actorId` null) or a deleted account"),
        data: z.record(z.string(), z.unknown()),
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "ObservatoryHistory" });

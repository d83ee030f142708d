import { z } from "zod";

/**
 * The committed catalog file (`catalog.json`): written by `pnpm --filter @meridian/domain
 * build:catalog` (catalog-builder.ts), read once by the index (catalog-index.ts).
 */

/** What an object is, from OpenNGC's types (a cluster with nebulosity such as M42 reads as a nebula) or a star. */
export const targetKinds = [
  "galaxy",
  "galaxy_group",
  "open_cluster",
  "globular_cluster",
  "star_association",
  "planetary_nebula",
  "nebula",
  "dark_nebula",
  "supernova_remnant",
  "nova",
  "star",
  "double_star",
  "other",
] as const;
export type TargetKind = (typeof targetKinds)[number];

/**
 * The catalog an object's designation comes from, in the order search prefers them when matches are
 * otherwise equal: Messier, NGC, IC, then the others (OpenNGC's addendum and the IAU's star names),
 * then stars known only by a Bayer or Flamsteed designation.
 */
export const targetCatalogs = [
  "Messier",
  "NGC",
  "IC",
  "IAU",
  "Caldwell",
  "Barnard",
  "Collinder",
  "ESO",
  "Harvard",
  "HCG",
  "Melotte",
  "MWSC",
  "PGC",
  "UGC",
  "Bayer",
  "Flamsteed",
] as const;
export type TargetCatalog = (typeof targetCatalogs)[number];

/** One object: its designation, catalog, kind, J2000 position in degrees and its other names. */
export type CatalogEntry = [designation: string, catalog: TargetCatalog, kind: TargetKind, ra: number, dec: number, aliases: string[]];

const catalogEntrySchema = z.tuple([
  z.string().min(1),
  z.enum(targetCatalogs),
  z.enum(targetKinds),
  z.number().min(0).lt(360),
  z.number().min(-90).max(90),
  z.array(z.string().min(1)),
]);

export const catalogFileSchema = z.object({
  about: z.string(),
  sources: z.array(z.object({ name: z.string(), package: z.string(), licence: z.string() })),
  columns: z.array(z.string()),
  objects: z.array(catalogEntrySchema),
});
export type CatalogFile = z.infer<typeof catalogFileSchema>;

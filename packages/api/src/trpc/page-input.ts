import { opaqueIdSchema } from "@meridian/domain";
import { z } from "zod";

/** Cursor paging as TanStack's infinite queries send it (they add `direction`; only forward exists). */
export const pageInput = {
  limit: z.number().int().min(1).max(200).default(50),
  cursor: opaqueIdSchema.nullish(),
  direction: z.literal("forward").optional(),
};

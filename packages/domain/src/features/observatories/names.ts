import { observatoriesCollection, tables } from "@meridian/db";
import { inArray } from "drizzle-orm";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { resolveObservatoryAccess } from "../permissions";
import { opaqueIdSchema } from "../users";

export const observatoryNamesQuerySchema = z.object({ ids: z.array(opaqueIdSchema).max(200) });
export const observatoryNamesSchema = z
  .object({ items: z.array(z.object({ id: z.string(), name: z.string(), removed: z.boolean() })) })
  .meta({ id: "ObservatoryNames" });

/**
 * The names of the observatories, among `ids`, the caller can view, removed ones included (as
 * before their removal): what an observation shows of its observatory once that has left every
 * list. Ids the caller cannot view are left out, as if they did not exist.
 */
export async function listObservatoryNames(options: { deps: Deps; actor: UserActor; ids: string[] }) {
  const { deps, actor } = options;
  const ids = [...new Set(options.ids)];
  const access = await resolveObservatoryAccess({
    db: deps.db,
    userId: actor.id,
    isServerAdmin: actor.isServerAdmin,
    observatoryIds: ids,
    includeRemoved: true,
  });
  const visible = ids.filter((id) => access.get(id)?.can_view);
  if (visible.length === 0) return { items: [] };
  const rows = await observatoriesCollection.findMany(deps.db, inArray(tables.observatories.id, visible));
  return { items: rows.map((row) => ({ id: row.id, name: row.doc.name, removed: Boolean(row.doc.removedAt) })) };
}

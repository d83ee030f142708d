import { tables, type Executor, type ObservatoryDoc } from "@meridian/db";
import { inArray, sql } from "drizzle-orm";

const ownerKey = (owner: ObservatoryDoc["owner"]) => `${owner.kind}:${owner.id}`;

/**
 * The names of these observatories' owners, two queries whatever the count. For callers who may
 * view the observatories: the members list already shows them the owner by name.
 */
export async function loadOwnerNames(options: { db: Executor; owners: Array<ObservatoryDoc["owner"]> }) {
  const { db, owners } = options;
  const ids = (kind: "user" | "organization") => [...new Set(owners.filter((owner) => owner.kind === kind).map((owner) => owner.id))];
  const [users, organizations] = await Promise.all(
    [
      { kind: "user" as const, table: tables.users },
      { kind: "organization" as const, table: tables.organizations },
    ].map(async ({ kind, table }) => {
      const wanted = ids(kind);
      if (wanted.length === 0) return [];
      const rows = await db
        .select({ id: table.id, name: sql<string | null>`${table.doc}->>'name'` })
        .from(table)
        .where(inArray(table.id, wanted));
      return rows.map((row) => [`${kind}:${row.id}`, row.name] as const);
    }),
  );
  const names = new Map<string, string>();
  for (const [key, name] of [...users!, ...organizations!]) if (name) names.set(key, name);
  return { nameOf: (owner: ObservatoryDoc["owner"]) => names.get(ownerKey(owner)) };
}

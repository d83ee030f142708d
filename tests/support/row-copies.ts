import type postgres from "postgres";

/**
 * Writes `copies` copies of one row of `table` in one statement, ids `<id>-copy-<n>`, every other
 * column as the row has it (its key columns so agree with its document; generated columns are made
 * again): the thousands of rows a cap is tried against, too many to create through the API.
 * `vary` names a key column and its document field that a unique index forbids copying as they
 * are (a membership's user, an account's email): both get `-copy-<n>` too, so a copied membership
 * names the copied account of the same `n`.
 */
export async function copyRow(sql: postgres.Sql, options: { table: string; id: string; copies: number; vary?: { column: string; field: string } }) {
  const { table, id, copies, vary } = options;
  const columns = await sql<Array<{ name: string }>>`
    select column_name as name from information_schema.columns
     where table_schema = 'public' and table_name = ${table} and is_generated = 'NEVER' and column_name <> 'id'`;
  const list = columns.map((column) => `"${column.name}"`).join(", ");
  const values = columns
    .map(({ name }) => {
      if (name === vary?.column) return `"${name}" || '-copy-' || n`;
      if (name === "doc" && vary) return `jsonb_set(doc, array['${vary.field}'], to_jsonb((doc->>'${vary.field}') || '-copy-' || n))`;
      return `"${name}"`;
    })
    .join(", ");
  await sql.unsafe(`insert into "${table}" (id, ${list}) select $1 || '-copy-' || n, ${values} from "${table}", generate_series(1, $2::int) n where id = $1`, [
    id,
    copies,
  ]);
}

/**
 * `copies` more accounts copied from `userId`, each made a member the way `userId` is one: their
 * membership row in `membership.table` (its scope in `scopeColumn`, the member in `column` and the
 * document's `field`) is copied too. The thousands of members a scope's cap is tried against.
 */
export async function copyMembers(
  sql: postgres.Sql,
  options: { userId: string; copies: number; membership: { table: string; scopeColumn: string; scopeId: string; column: string; field: string } },
) {
  const { userId, copies, membership } = options;
  const [row] = await sql.unsafe<Array<{ id: string }>>(
    `select id from "${membership.table}" where "${membership.scopeColumn}" = $1 and "${membership.column}" = $2`,
    [membership.scopeId, userId],
  );
  if (!row) throw new Error(`${userId} is no member in ${membership.table} of ${membership.scopeId}`);
  await copyRow(sql, { table: "users", id: userId, copies, vary: { column: "email_lower", field: "email" } });
  await copyRow(sql, { table: membership.table, id: row.id, copies, vary: { column: membership.column, field: membership.field } });
}

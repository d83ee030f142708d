import type postgres from "postgres";

/**
 * Writes `copies` copies of one row of `table` in one statement, ids `<id>-copy-<n>`, every other
 * column as the row has it (its key columns so agree with its document; generated columns are made
 * again): the thousands of rows a cap is tried against, too many to create through the API.
 */
export async function copyRow(sql: postgres.Sql, options: { table: string; id: string; copies: number }) {
  const { table, id, copies } = options;
  const columns = await sql<Array<{ name: string }>>`
    select column_name as name from information_schema.columns
     where table_schema = 'public' and table_name = ${table} and is_generated = 'NEVER' and column_name <> 'id'`;
  const list = columns.map((column) => `"${column.name}"`).join(", ");
  await sql.unsafe(`insert into "${table}" (id, ${list}) select $1 || '-copy-' || n, ${list} from "${table}", generate_series(1, $2::int) n where id = $1`, [
    id,
    copies,
  ]);
}

import { and, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable, PgTableWithColumns, TableConfig } from "drizzle-orm/pg-core";
import type { z } from "zod";
import type { Executor } from "./client";

type DocumentTable = PgTableWithColumns<TableConfig> & {
  id: PgColumn;
  doc: PgColumn;
  createdAt: PgColumn;
  updatedAt: PgColumn;
};

export interface StoredDocument<Doc> {
  id: string;
  doc: Doc;
  createdAt: Date;
  updatedAt: Date;
}

/** A document row read with raw SQL (`select id, doc, created_at, updated_at …`), as the collections present it. */
export function storedFromRow<Doc>(row: { id: string; doc: Doc; created_at: string | Date; updated_at: string | Date }): StoredDocument<Doc> {
  return { id: row.id, doc: row.doc, createdAt: new Date(row.created_at), updatedAt: new Date(row.updated_at) };
}

/**
 * A typed collection over a JSONB document table. Key columns are always derived from the
 * document by `keys`, so they can never drift from it.
 */
export function defineCollection<Table extends PgTable, Doc, Keys extends Record<string, unknown>>(options: {
  table: Table;
  schema: z.ZodType<Doc>;
  keys: (doc: Doc) => Keys;
  idPrefix: string;
  /**
   * Document fields copied as they are into a key column, for `patch`. Every field `keys` reads
   * and a set-based change may touch must be listed, so document and column change together.
   */
  fieldColumns?: Partial<Record<keyof Doc & string, PgColumn>>;
}) {
  const table = options.table as unknown as DocumentTable;
  const columns = getTableColumns(table);

  const row = (doc: Doc) => ({ doc, ...options.keys(doc) });
  const toStored = (record: Record<string, unknown>): StoredDocument<Doc> => ({
    id: record.id as string,
    doc: record.doc as Doc,
    createdAt: record.createdAt as Date,
    updatedAt: record.updatedAt as Date,
  });

  return {
    table: options.table,
    schema: options.schema,
    /** The key columns a document gives; integrity scans compare them with what is stored. */
    keys: options.keys,
    newId: () => newId(options.idPrefix),

    /**
     * `stampAtStatement` dates the row by the statement's clock instead of the transaction's start,
     * so rows one transaction writes in a row keep their order in lists sorted by creation time.
     */
    async insert(
      db: Executor,
      doc: Doc,
      id: string = newId(options.idPrefix),
      insertOptions: { stampAtStatement?: boolean } = {},
    ): Promise<StoredDocument<Doc>> {
      const stamp = insertOptions.stampAtStatement ? { createdAt: sql`clock_timestamp()`, updatedAt: sql`clock_timestamp()` } : {};
      const [record] = await db
        .insert(table)
        .values({ id, ...row(doc), ...stamp } as never)
        .returning();
      return toStored(record as Record<string, unknown>);
    },

    /**
     * Many documents in one statement (new ids); nothing is returned. The rows go as one JSON
     * parameter unpacked by the database: a parameter per value cost drizzle about 0.1 ms a row,
     * a second of a full scan's thread for 10,000 issues.
     */
    async insertMany(db: Executor, docs: Doc[]): Promise<void> {
      if (docs.length === 0) return;
      const rows = docs.map((doc) => ({ id: newId(options.idPrefix), ...row(doc) }) as Record<string, unknown>);
      const targets = [...new Set(rows.flatMap((one) => Object.keys(one)))].map((key) => columns[key]!);
      const byColumn = rows.map((one) => Object.fromEntries(Object.entries(one).map(([key, value]) => [columns[key]!.name, value])));
      const names = sql.join(
        targets.map((column) => sql.identifier(column.name)),
        sql`, `,
      );
      const types = sql.join(
        targets.map((column) => sql`${sql.identifier(column.name)} ${sql.raw(column.getSQLType())}`),
        sql`, `,
      );
      await db.execute(sql`insert into ${table} (${names}) select ${names} from jsonb_to_recordset(${JSON.stringify(byColumn)}::jsonb) as r(${types})`);
    },

    /** `forUpdate` locks the row until the transaction ends, so concurrent changes queue up. */
    async get(db: Executor, id: string, options: { forUpdate?: boolean } = {}): Promise<StoredDocument<Doc> | undefined> {
      const query = db.select().from(table).where(eq(table.id, id)).limit(1);
      const [record] = options.forUpdate ? await query.for("update") : await query;
      return record ? toStored(record as Record<string, unknown>) : undefined;
    },

    async findOne(db: Executor, where: SQL): Promise<StoredDocument<Doc> | undefined> {
      const [record] = await db.select().from(table).where(where).limit(1);
      return record ? toStored(record as Record<string, unknown>) : undefined;
    },

    async findMany(db: Executor, where: SQL | undefined, orderBy: SQL = sql`${table.createdAt} desc`, limit = 200) {
      const records = await db.select().from(table).where(where).orderBy(orderBy).limit(limit);
      return records.map((record) => toStored(record as Record<string, unknown>));
    },

    /**
     * Reads the row locked, applies `change` and writes document and key columns back. `change` may run more than
     * once (the row changed between the read and the write, no transaction holding it), so it must not count its
     * calls. With `seen` (the row as the caller read it, typically already locked), the write goes out at once and
     * holds only if the stored document is still that one, a round trip fewer; if it changed meanwhile, the change is
     * applied to the row as it is now.
     */
    async update(
      db: Executor,
      id: string,
      change: (doc: Doc) => Doc,
      updateOptions: { seen?: StoredDocument<Doc> } = {},
    ): Promise<StoredDocument<Doc> | undefined> {
      const { seen } = updateOptions;
      if (seen?.id === id) {
        const [record] = await db
          .update(table)
          .set({ ...row(change(seen.doc)), updatedAt: new Date() } as never)
          .where(and(eq(table.id, id), sql`${table.doc} = ${JSON.stringify(seen.doc)}::jsonb`))
          .returning();
        if (record) return toStored(record as Record<string, unknown>);
      }
      // Outside a transaction the read's lock ends with its statement: the write holds only if the row is still the
      // version read (its xmin), else the change is applied again to the row as it is now. Writing back what was read
      // would undo a change committed in between (a revocation under a last-used stamp, a failure under a completion).
      for (;;) {
        const [current] = await db
          .select({ doc: table.doc, version: sql<string>`${table}.xmin::text` })
          .from(table)
          .where(eq(table.id, id))
          .for("update")
          .limit(1);
        if (!current) return undefined;
        const doc = change(current.doc as Doc);
        const [record] = await db
          .update(table)
          .set({ ...row(doc), updatedAt: new Date() } as never)
          .where(and(eq(table.id, id), sql`${table}.xmin = ${current.version}::xid`))
          .returning();
        if (record) return toStored(record as Record<string, unknown>);
      }
    },

    /**
     * A set-based change of some document fields in one statement: each field is written into
     * `doc` and, when it has a key column (`fieldColumns`), into that column from the same
     * expression, so the two cannot drift. Expressions are evaluated against the row as it was
     * (`acknowledged_count + 1`); plain values are bound as parameters.
     */
    async patch<Row extends Record<string, unknown> = Record<string, unknown>>(
      db: Executor,
      where: SQL,
      fields: Partial<Record<keyof Doc & string, FieldValue>>,
      patchOptions: { at?: Date; returning?: SQL } = {},
    ) {
      const entries = Object.entries(fields) as Array<[string, FieldValue]>;
      if (entries.length === 0) throw new Error("patch needs at least one field");
      const jsonPairs = entries.map(([field, value]) => sql`${field}::text, ${expression(value)}`);
      const assignments = [sql`doc = doc || jsonb_build_object(${sql.join(jsonPairs, sql`, `)})`];
      for (const [field, value] of entries) {
        const column = options.fieldColumns?.[field as keyof Doc & string];
        if (!column) continue;
        const cast = column.columnType === "PgTimestamp" ? sql`::timestamptz` : sql``;
        assignments.push(sql`${sql.identifier(column.name)} = (${expression(value)})${cast}`);
      }
      assignments.push(patchOptions.at ? sql`updated_at = ${patchOptions.at.toISOString()}::timestamptz` : sql`updated_at = now()`);
      return db.execute<Row>(sql`
        update ${table} a set ${sql.join(assignments, sql`, `)}
         where ${where}
         returning ${patchOptions.returning ?? sql`a.id`}`);
    },

    async remove(db: Executor, id: string): Promise<boolean> {
      const records = await db.delete(table).where(eq(table.id, id)).returning({ id: table.id });
      return records.length > 0;
    },

    columns,
  };
}

/** A new value for a document field in `patch`: an SQL expression, or a value bound as a parameter. */
export type FieldValue = SQL | string | number | boolean | null;

function expression(value: FieldValue): SQL {
  if (value === null) return sql`null::text`;
  if (typeof value === "string") return sql`${value}::text`;
  if (typeof value === "number") return Number.isInteger(value) ? sql`${value}::integer` : sql`${value}::double precision`;
  if (typeof value === "boolean") return sql`${value}::boolean`;
  return value;
}

export function newId(prefix: string): string {
  // Sortable by creation time and unguessable: 48 bits of milliseconds, 80 random bits.
  const time = Date.now().toString(36).padStart(10, "0");
  const random = crypto.getRandomValues(new Uint8Array(10));
  return `${prefix}_${time}${Buffer.from(random).toString("base64url")}`;
}

import { eq, getTableColumns, sql, type SQL } from "drizzle-orm";
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

/**
 * A typed collection over a JSONB document table. Key columns are always derived from the
 * document by `keys`, so they can never drift from it.
 */
export function defineCollection<Table extends PgTable, Doc, Keys extends Record<string, unknown>>(options: {
  table: Table;
  schema: z.ZodType<Doc>;
  keys: (doc: Doc) => Keys;
  idPrefix: string;
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
    newId: () => newId(options.idPrefix),

    /**
     * `stampAtStatement` dates the row by the statement's clock instead of the transaction's start,
     * so rows one transaction writes in a row keep their order in lists sorted by creation time.
     */
    async insert(db: Executor, doc: Doc, id: string = newId(options.idPrefix), insertOptions: { stampAtStatement?: boolean } = {}): Promise<StoredDocument<Doc>> {
      const stamp = insertOptions.stampAtStatement ? { createdAt: sql`clock_timestamp()`, updatedAt: sql`clock_timestamp()` } : {};
      const [record] = await db.insert(table).values({ id, ...row(doc), ...stamp } as never).returning();
      return toStored(record as Record<string, unknown>);
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

    /** Reads the row locked, applies `change` and writes document and key columns back. */
    async update(db: Executor, id: string, change: (doc: Doc) => Doc): Promise<StoredDocument<Doc> | undefined> {
      const [current] = await db.select().from(table).where(eq(table.id, id)).for("update").limit(1);
      if (!current) return undefined;
      const doc = change((current as Record<string, unknown>).doc as Doc);
      const [record] = await db
        .update(table)
        .set({ ...row(doc), updatedAt: new Date() } as never)
        .where(eq(table.id, id))
        .returning();
      return toStored(record as Record<string, unknown>);
    },

    async remove(db: Executor, id: string): Promise<boolean> {
      const records = await db.delete(table).where(eq(table.id, id)).returning({ id: table.id });
      return records.length > 0;
    },

    columns,
  };
}

export function newId(prefix: string): string {
  // Sortable by creation time and unguessable: 48 bits of milliseconds, 80 random bits.
  const time = Date.now().toString(36).padStart(10, "0");
  const random = crypto.getRandomValues(new Uint8Array(10));
  return `${prefix}_${time}${Buffer.from(random).toString("base64url")}`;
}

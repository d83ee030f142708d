import { once } from "node:events";
import type postgres from "postgres";
import type { SectionHeader } from "./archive-format";
import type { SectionSink } from "./archive-io";

/** Where a restore loads the backup before swapping it in. */
export const SIDE_SCHEMA = "meridian_restore";
/** A side table: the live one's columns, defaults and checks, without indexes (built after the load, as pg_restore does). */
const LIKE_LIVE = "including defaults including constraints including generated including storage";
/**
 * A section this large is loaded through every connection at once: parsing COPY text into JSONB
 * is the restore's bottleneck, and one backend does it on one core.
 */
export const PARALLEL_SECTION_BYTES = 512 * 1024;

export const createSideTable = ({ connection, table }: { connection: postgres.ReservedSql; table: string }) =>
  connection.unsafe(`create table "${SIDE_SCHEMA}"."${table}" (like "${table}" ${LIKE_LIVE})`);

/** One COPY FROM STDIN into a side table, written with backpressure. */
async function openCopy(connection: postgres.ReservedSql, header: SectionHeader) {
  const stream = await connection`copy ${connection(SIDE_SCHEMA)}.${connection(header.collection)} (${connection(header.columns)}) from stdin`.writable();
  let failure: Error | undefined;
  stream.on("error", (error) => (failure = error));
  return {
    async write(chunk: Buffer) {
      if (failure) throw failure;
      // events.once rejects on "error" and removes both listeners, so waits do not pile up.
      if (!stream.write(chunk)) await once(stream, "drain");
    },
    async end() {
      if (failure) throw failure;
      await new Promise<void>((resolve, reject) => {
        stream.once("error", reject);
        stream.end(resolve);
      });
    },
    abort() {
      stream.destroy(new Error("the restore gave up on this collection"));
    },
  };
}

/**
 * The sink a section's rows stream into, in its (already created) side table: one COPY per
 * connection, each chunk's whole rows going to the next COPY in turn (a row cut by the chunk's
 * end follows with the next chunk), so every backend parses rows at once.
 */
export async function copyInto({ connections, header }: { connections: postgres.ReservedSql[]; header: SectionHeader }): Promise<SectionSink> {
  const copies = await Promise.all(connections.map((connection) => openCopy(connection, header)));
  let turn = 0;
  let carry: Buffer | undefined;
  return {
    async write(chunk) {
      const lastNewline = chunk.lastIndexOf(10);
      if (lastNewline === -1) {
        carry = carry ? Buffer.concat([carry, chunk]) : chunk;
        return;
      }
      const copy = copies[turn]!;
      turn = (turn + 1) % copies.length;
      if (carry) await copy.write(carry);
      await copy.write(lastNewline === chunk.length - 1 ? chunk : chunk.subarray(0, lastNewline + 1));
      carry = lastNewline === chunk.length - 1 ? undefined : chunk.subarray(lastNewline + 1);
    },
    async end() {
      // Rows end with a newline, so a carry here is a damaged archive: COPY rejects it, or the digest does.
      if (carry) await copies[turn]!.write(carry);
      await Promise.all(copies.map((copy) => copy.end()));
    },
    abort() {
      for (const copy of copies) copy.abort();
    },
  };
}

/**
 * Gives the loaded side tables the live tables' primary keys, unique constraints and indexes,
 * under the same names (names are per schema), so after the swap the schema is exactly what the
 * migrations made. Each is built once over all rows, which is quicker than keeping it up row by
 * row, and the builds share the connections (a constraint's index is built as a plain unique index
 * and attached after, since ADD CONSTRAINT would lock the table against the other builds).
 */
export async function buildIndexes({ connections, tables }: { connections: postgres.ReservedSql[]; tables: readonly string[] }) {
  const connection = connections[0]!;
  const builds: Array<{ statement: string; weight: number }> = [];
  const attachments: string[] = [];
  for (const table of tables) {
    const rows = await connection<Array<{ definition: string; schema: string; constraint: string | null; kind: string | null; weight: number }>>`
      select pg_get_indexdef(i.indexrelid) as definition, current_schema() as schema, c.conname as constraint, c.contype as kind,
        pg_relation_size(format('%I.%I', ${SIDE_SCHEMA}::text, ${table}::text)) * i.indnatts as weight
      from pg_index i left join pg_constraint c on c.conindid = i.indexrelid and c.conrelid = i.indrelid
      where i.indrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident(${table}))`;
    for (const row of rows) {
      if (row.kind !== null && row.kind !== "p" && row.kind !== "u")
        throw new Error(`cannot rebuild the constraint ${row.constraint} of ${table} on the side table`);
      const live = ` ON ${row.schema === "public" ? "public" : `"${row.schema}"`}.`;
      if (!row.definition.includes(live)) throw new Error(`cannot place the index ${row.definition} on the side table`);
      builds.push({ statement: row.definition.replace(live, ` ON "${SIDE_SCHEMA}".`), weight: Number(row.weight) });
      if (row.constraint)
        attachments.push(
          `alter table "${SIDE_SCHEMA}"."${table}" add constraint "${row.constraint}" ` +
            `${row.kind === "p" ? "primary key" : "unique"} using index "${row.constraint}"`,
        );
    }
  }
  // The heaviest builds (big tables, wide keys) first, so no long one is left for the end on one connection.
  builds.sort((a, b) => b.weight - a.weight);
  await Promise.all(
    connections.map(async (worker) => {
      for (let next = builds.shift(); next !== undefined; next = builds.shift()) await worker.unsafe(next.statement);
    }),
  );
  for (const attachment of attachments) await connection.unsafe(attachment);
}

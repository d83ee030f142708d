/**
 * The dispatch benchmark's second peer: what PostgreSQL and the driver alone cost on the way from a
 * submission to its `assign`, with no Meridian code. Each sample is the path's database work in
 * series: a transaction of the request's shape, its NOTIFY heard on a second connection (the
 * dispatch job's pickup), a transaction of the dispatch's shape, its NOTIFY heard (the event reaching
 * the hub). Each transaction sends `STATEMENTS_PER_TRANSACTION` statements one after another, as
 * Meridian's request and dispatch transactions do (about a dozen each, counted in a statement
 * trace, 2026-11-28), the last an insert of an observation-sized document whose NOTIFY goes out
 * with it, then commits (a flush, as Meridian's commits are). It runs on the server's own
 * PostgreSQL, so the machine's round trips, wake-ups and flushes at that moment are the floor the
 * server's figures stand on.
 */
import postgres from "postgres";
import { sleep } from "./lib.mjs";

const STATEMENTS_PER_TRANSACTION = 12;
const CHANNEL = "bench_postgres_floor";
const now = () => performance.timeOrigin + performance.now();

/** An observation's stored document is about this size (a target, its exposures, constraints and history stamps). */
const document = {
  name: "Floor",
  targets: [{ name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] }],
  constraints: { maxAirmass: 2, minMoonDistanceDegrees: 30, twilight: "astronomical" },
  notes: "x".repeat(600),
};

/** Milliseconds of each sample after `warmup` not counted. */
export async function measurePostgresFloor(options: { databaseUrl: string; samples: number; warmup: number }): Promise<number[]> {
  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => undefined });
  const listener = postgres(options.databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    await sql`create table if not exists bench_postgres_floor (id bigserial primary key, doc jsonb not null)`;
    let heard: (() => void) | undefined;
    await listener.listen(CHANNEL, () => heard?.());
    const transactionHeard = async () => {
      const notified = new Promise<void>((resolve) => (heard = resolve));
      await sql.begin(async (tx) => {
        for (let statement = 1; statement < STATEMENTS_PER_TRANSACTION; statement += 1) await tx`select ${statement}::int`;
        await tx`with inserted as (insert into bench_postgres_floor (doc) values (${tx.json(document)}) returning id)
                 select pg_notify(${CHANNEL}, id::text) from inserted`;
      });
      await notified;
    };
    const samples: number[] = [];
    for (let index = 0; index < options.samples + options.warmup; index += 1) {
      // Idle between samples, as the server is between its own: a wake-up from idle is part of the floor.
      await sleep(5);
      const started = now();
      await transactionHeard();
      await transactionHeard();
      if (index >= options.warmup) samples.push(now() - started);
    }
    await sql`drop table bench_postgres_floor`;
    return samples;
  } finally {
    await Promise.all([sql.end({ timeout: 5 }), listener.end({ timeout: 5 })]);
  }
}

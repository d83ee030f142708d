/**
 * The dispatch benchmark's second peer: what PostgreSQL and the driver alone cost on the way from a
 * submission to its `assign`, with no Meridian code. Each sample is the measured path's database work:
 * one transaction of the assigning submission's shape (ADR 0033; counted in a statement trace,
 * 2026-11-28): `BEGIN`, its checks as one batch of `CHECKS` reads sent together, its writes as one
 * batch of `WRITES` inserts of an observation-sized document sent together, the last with the NOTIFY
 * that carries the `assign`, then `COMMIT` (a flush, as Meridian's commits are), and the NOTIFY heard
 * on a second connection (the event reaching the hub). It runs on the server's own PostgreSQL, so the
 * machine's round trips, wake-ups and flushes at that moment are the floor the server's figures
 * stand on.
 */
import postgres from "postgres";
import { sleep } from "./lib.mjs";

/** The submission's checks: permission, project, observatory (twice), project lock and count, timings, settings, owner, readers (two). */
const CHECKS = 12;
/** Its writes: observation, two history entries, email outbox row and job, push job, three events, the page-cache count. */
const WRITES = 10;
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
        await Promise.all(Array.from({ length: CHECKS }, (_, statement) => tx`select ${statement}::int`));
        await Promise.all([
          ...Array.from({ length: WRITES - 1 }, () => tx`insert into bench_postgres_floor (doc) values (${tx.json(document)})`),
          tx`with inserted as (insert into bench_postgres_floor (doc) values (${tx.json(document)}) returning id)
             select pg_notify(${CHANNEL}, id::text) from inserted`,
        ]);
      });
      await notified;
    };
    const samples: number[] = [];
    for (let index = 0; index < options.samples + options.warmup; index += 1) {
      // Idle between samples, as the server is between its own: a wake-up from idle is part of the floor.
      await sleep(5);
      const started = now();
      await transactionHeard();
      if (index >= options.warmup) samples.push(now() - started);
    }
    await sql`drop table bench_postgres_floor`;
    return samples;
  } finally {
    await Promise.all([sql.end({ timeout: 5 }), listener.end({ timeout: 5 })]);
  }
}

import type postgres from "postgres";
import { currentQueryScope } from "./query-scope";

/**
 * Statements with more parameters than this (a long `in (…)` list, a bulk insert) stay unprepared: each length of such a list
 * is a statement of its own, and prepared they would pile up on the server for the connection's life.
 */
const MAX_PREPARED_PARAMETERS = 32;

type Unsafe = postgres.Sql["unsafe"];
type TransactionWork = (scoped: postgres.Sql) => unknown;

function tracked<Query extends object>(query: Query): Query {
  currentQueryScope()?.track(query);
  return query;
}

/**
 * The postgres.js client as drizzle should see it: its queries prepared. drizzle runs every query through
 * `sql.unsafe(text, parameters, { prepare: false })` (drizzle-team/drizzle-orm#6096), and postgres.js sends an unprepared
 * query with parameters in two round trips, Parse and Describe first, Bind and Execute once the server has said the
 * parameters' types. Prepared (named, kept per connection until the connection's `max_lifetime`), a statement seen before is
 * one round trip and no parsing. Transactions and savepoints hand drizzle a scoped client, wrapped the same way.
 */
export function preparingForDrizzle(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === "unsafe") {
        const unsafe: Unsafe = (query, parameters, options) => {
          const count = parameters?.length ?? 0;
          // A request's queries end with it (request deadline, query-scope.ts).
          return tracked(target.unsafe(query, parameters, { ...options, prepare: count > 0 && count <= MAX_PREPARED_PARAMETERS }));
        };
        return unsafe;
      }
      if (property === "begin" || property === "savepoint") {
        const scoping = Reflect.get(target, property, receiver) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => {
          const work = args.pop() as TransactionWork;
          return scoping(...args, (scoped: postgres.Sql) => work(preparingForDrizzle(scoped)));
        };
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

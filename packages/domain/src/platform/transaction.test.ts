import type { Database, Transaction } from "@meridian/db";
import { describe, expect, expectTypeOf, it } from "vitest";
import { endSessions } from "../features/accounts/user-sessions";
import type { Deps } from "./deps";
import { moveObservation } from "../features/observations/transitions";
import { inTransaction, type InTransaction } from "./transaction";

/**
 * Checked by the type checker (`tsc` in `pnpm test`): each `@ts-expect-error` fails the build if
 * the line below it compiles, so the pool can never again be passed where the transaction belongs.
 */
describe("the transaction context", () => {
  it("holds the transaction and the services, never the pool", () => {
    expectTypeOf<InTransaction["tx"]>().toEqualTypeOf<Transaction>();
    expectTypeOf<InTransaction>().toHaveProperty("now");
    expectTypeOf<InTransaction>().not.toHaveProperty("db");
    expectTypeOf<InTransaction>().not.toHaveProperty("sql");
  });

  it("cannot be stood in for by the services or the pool", () => {
    expectTypeOf<Deps>().not.toExtend<InTransaction>();
    expectTypeOf<Database>().not.toExtend<Transaction>();
    expectTypeOf<Omit<Deps, "db"> & { tx: Database }>().not.toExtend<InTransaction>();
  });

  it("is what a function inside a transaction takes", () => {
    // Never called: the body is only type-checked.
    const uses = (deps: Deps, t: InTransaction) => {
      void endSessions({ t, userId: "user" });
      // @ts-expect-error the services are no transaction
      void endSessions({ t: deps, userId: "user" });
      // @ts-expect-error the pool is no transaction, whatever it is called
      void endSessions({ t: { tx: deps.db, caches: deps.caches }, userId: "user" });
      // @ts-expect-error inside a transaction there is no pool to reach
      void t.db;
      // @ts-expect-error the old positional form is gone
      void moveObservation(deps.db, deps, { observation: undefined!, to: "pending", actor: { kind: "system", id: "test" } });
      return inTransaction(deps, async (inner) => {
        expectTypeOf(inner).toEqualTypeOf<InTransaction>();
      });
    };
    expect(uses).toBeTypeOf("function");
  });
});

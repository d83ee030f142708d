import path from "node:path";
import { ESLint, RuleTester } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import { meridianPlugin } from "../../eslint/invariants.js";

// The rules of ARCHITECTURE.md's invariants, each shown refusing a planted violation and leaving the allowed forms alone.
RuleTester.describe = describe;
RuleTester.it = it;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const repoRoot = path.resolve(import.meta.dirname, "../..");

describe("one writer of an observation's status", () => {
  const rule = meridianPlugin.rules["observation-status-writer"]!;
  tester.run("observation-status-writer", rule, {
    valid: [
      "await observationsCollection.update(t.tx, id, (doc) => ({ ...doc, lostFiles: [] }));",
      "await observationsCollection.update(t.tx, id, ({ status, ...doc }) => doc);",
      "const project: ProjectDoc = { ...doc, status: 'archived' };",
      "await projectsCollection.update(t.tx, id, (doc) => ({ ...doc, status: 'archived' }));",
      "await t.tx.execute(sql`update observations set doc = doc || ${patch} where status = 'assigned' returning id`);",
      "const doc: ObservationDoc = { ...pending, ...newObservationStatus(now) };",
    ],
    invalid: [
      "await observationsCollection.update(t.tx, id, (doc) => ({ ...doc, status: 'failed' }));",
      "await observationsCollection.patch(t.tx, id, { statusReason: 'stuck' });",
      "await observationsCollection.insert(t.tx, { ...fields, status: 'assigned' }, id);",
      "const doc: ObservationDoc = { ...pending, status: 'assigned' };",
      "function reset(doc: ObservationDoc): ObservationDoc { return { ...doc, statusChangedAt: now }; }",
      "const doc = { ...pending, status: 'assigned' } satisfies ObservationDoc;",
      "await t.tx.execute(sql`update observations set doc = jsonb_set(doc, '{status}', ${to}) where id = ${id}`);",
      "await t.tx.execute(sql`insert into observations (id, doc) values (${id}, ${doc})`);",
      "await t.tx.update(tables.observations).set({ doc });",
    ].map((code) => ({ code, errors: 1 })),
  });

  it("is on for the code of packages and apps, and off in the transition module and tests", async () => {
    const eslint = new ESLint({ cwd: repoRoot });
    const ruleAt = async (file: string) => (await eslint.calculateConfigForFile(file)).rules?.["meridian/observation-status-writer"];
    expect(await ruleAt("packages/domain/src/features/observations/insert.ts")).toEqual([2]);
    expect(await ruleAt("apps/server/src/main.ts")).toEqual([2]);
    expect(await ruleAt("packages/domain/src/features/observations/transitions.ts")).toBeUndefined();
    expect(await ruleAt("tests/integration/observations.test.ts")).toBeUndefined();
  });
});

describe("one name for the database handle", () => {
  const rule = meridianPlugin.rules["one-handle-name"]!;
  tester.run("one-handle-name", rule, {
    valid: [
      "await inTransaction(deps, async (t) => { await t.tx.execute(sql`select 1`); });",
      "export async function readIt(options: { db: Executor; id: string }) { return options.db.execute(sql`select 1`); }",
      "await readIt({ db: t.tx, id });",
      "await readIt({ db: deps.db, id });",
      "async function lockIt(t: Pick<InTransaction, 'tx'>, id: string) { await t.tx.execute(sql`select 1`); }",
      "const context: { tx: Transaction } = t;",
    ],
    invalid: [
      { code: "const { tx } = t;", errors: 1 },
      { code: "const tx = t.tx;", errors: 1 },
      { code: "async function lockIt(tx: Executor, id: string) { await tx.execute(sql`select 1`); }", errors: 1 },
      { code: "await inTransaction(deps, async ({ tx }) => tx.execute(sql`select 1`));", errors: 2 },
      { code: "await inTransaction(deps, async (context) => context.tx.execute(sql`select 1`));", errors: 1 },
    ],
  });

  it("is on for the code of packages and apps, but where a transaction is made", async () => {
    const eslint = new ESLint({ cwd: repoRoot });
    const ruleAt = async (file: string) => (await eslint.calculateConfigForFile(file)).rules?.["meridian/one-handle-name"];
    expect(await ruleAt("packages/domain/src/features/integrity/scan.ts")).toEqual([2]);
    expect(await ruleAt("packages/api/src/operations/observations.ts")).toEqual([2]);
    expect(await ruleAt("packages/domain/src/platform/transaction.ts")).toBeUndefined();
    expect(await ruleAt("packages/domain/src/features/backups/archive-writer.ts")).toBeUndefined();
  });
});

import { oneHandleName } from "./one-handle-name.js";
import { observationStatusWriter } from "./observation-status-writer.js";

/** Meridian's own rules, for the invariants ARCHITECTURE.md states ("Rules"); each file says what its rule refuses and why. */
export const meridianPlugin = { meta: { name: "meridian" }, rules: { "observation-status-writer": observationStatusWriter, "one-handle-name": oneHandleName } };

/** Where a transaction is a postgres.js one of its own (the backup archive's snapshot; see one-transaction-style.js). */
const ownConnections = ["packages/domain/src/features/backups/archive-writer.ts", "packages/domain/src/features/backups/archive-thread.ts"];

export const invariants = [
  {
    files: ["packages/*/src/**/*.ts", "apps/*/src/**/*.{ts,tsx}"],
    ignores: ["**/*.test.{ts,tsx}", "packages/domain/src/features/observations/transitions.ts"],
    plugins: { meridian: meridianPlugin },
    rules: { "meridian/observation-status-writer": "error" },
  },
  {
    files: ["packages/*/src/**/*.ts", "apps/*/src/**/*.{ts,tsx}"],
    ignores: ["**/*.test.{ts,tsx}", "packages/domain/src/platform/transaction.ts", ...ownConnections],
    plugins: { meridian: meridianPlugin },
    rules: { "meridian/one-handle-name": "error" },
  },
];

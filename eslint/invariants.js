import { observationStatusWriter } from "./observation-status-writer.js";

/** Meridian's own rules, for the invariants ARCHITECTURE.md states ("Rules"); each file says what its rule refuses and why. */
export const meridianPlugin = { meta: { name: "meridian" }, rules: { "observation-status-writer": observationStatusWriter } };

export const invariants = [
  {
    files: ["packages/*/src/**/*.ts", "apps/*/src/**/*.{ts,tsx}"],
    ignores: ["**/*.test.{ts,tsx}", "packages/domain/src/observations/transitions.ts"],
    plugins: { meridian: meridianPlugin },
    rules: { "meridian/observation-status-writer": "error" },
  },
];

import type { ESLint, Linter } from "eslint";

export const meridianPlugin: ESLint.Plugin & { rules: NonNullable<ESLint.Plugin["rules"]> };
export const invariants: Linter.Config[];

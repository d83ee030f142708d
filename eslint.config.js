import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";
import { oneTransactionStyle } from "./eslint/one-transaction-style.js";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/.data/**", "**/migrations/**", "**/.turbo/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // One typed env module: configuration is read in packages/config only.
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "Read configuration through @meridian/config (loadEnv)." }],
    },
  },
  ...oneTransactionStyle,
  {
    files: ["packages/config/src/env.ts", "**/*.config.{ts,js}", "tests/**", "bench/**", ".ci/**"],
    rules: { "no-restricted-properties": "off" },
  },
);

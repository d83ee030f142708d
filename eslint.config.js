import js from "@eslint/js";
import globals from "globals";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";
import { oneTransactionStyle } from "./eslint/one-transaction-style.js";
import { invariants } from "./eslint/invariants.js";

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
  ...invariants,
  // The rules of hooks and their dependencies, and the React Compiler's checks of what a component may do while rendering.
  { files: ["apps/web/src/**/*.{ts,tsx}"], ...reactHooks.configs.flat.recommended },
  {
    // Rules that need types, for what reviews miss: a promise nobody awaits (its rejection is lost or
    // crashes the process), a promise where a callback's result is ignored, awaiting a non-promise,
    // and a switch over a union that forgets a member (a `default` that takes the rest on purpose
    // counts). Every TypeScript file is in the root tsconfig.json or apps/web/tsconfig.json, which
    // the project service finds by directory. The plain JavaScript files (bench drivers, config,
    // the service worker) are in no project: typing them through a default project cost about
    // 17 s of CPU per run, more than these scripts are worth.
    files: ["**/*.{ts,tsx,mts,cts}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // Test files share their worker's processes and modules (vitest.config.ts, isolate: false), so
    // nothing a file does may outlive it: no module mocks, stubs, spies or fake clocks, and no
    // writes to process.env (the global setup, which runs once before any worker, may).
    files: ["tests/**/*.ts", "**/*.test.{ts,tsx}"],
    ignores: ["tests/support/global-setup.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.object.name='vi'][callee.property.name=/^(mock|doMock|stubEnv|stubGlobal|spyOn|useFakeTimers)$/]",
          message:
            "Test files share worker processes (isolate: false): start what the test needs (a server, a receiver) instead of replacing modules or globals.",
        },
        {
          selector: [
            ":matches(AssignmentExpression > MemberExpression.left, UnaryExpression[operator='delete'] > MemberExpression)",
            "[object.object.name='process'][object.property.name='env']",
          ].join(""),
          message: "Test files share worker processes (isolate: false): give a started process or server its environment instead of changing this one's.",
        },
      ],
    },
  },
  {
    // The scheduling engine has no clock of its own: the moment it plans for is an input, so the same
    // inputs give the same answers (tests/integration/scheduler-golden.test.ts holds them).
    files: ["packages/scheduler/src/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: "The scheduler takes the time as an input (`now`, `at`): no clock of its own.",
        },
        {
          selector: "MemberExpression[object.name='Date'][property.name='now']",
          message: "The scheduler takes the time as an input (`now`, `at`): no clock of its own.",
        },
      ],
    },
  },
  {
    // scripts/cluster.ts launches Meridian's processes and hands them their environment, as tests and benchmarks do;
    // scripts/free-port.ts reads which vitest worker it runs in; the simulator's command line, a plugin and not Meridian
    // (no @meridian/config), reads the star catalog's folder from the STAR_CATALOG_DIR the server reads.
    files: [
      "packages/config/src/env.ts",
      "**/*.config.{ts,js}",
      "tests/**",
      "bench/**",
      ".ci/**",
      "scripts/cluster.ts",
      "scripts/free-port.ts",
      "apps/simulator/src/main.ts",
    ],
    rules: { "no-restricted-properties": "off" },
  },
);

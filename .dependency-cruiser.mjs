/**
 * Which package may import which (docs/ARCHITECTURE.md, "Packages"): rules ← config ← db ← domain ←
 * api ← server; rules ← scheduler ← domain; worker and cli → domain; server → worker; observatory-client → rules; simulator →
 * observatory-client and rules; web → rules and the
 * types of @meridian/api/client. A package may use any package below it, none above or beside it.
 * Workspace imports resolve through the packages' `exports` to files under packages/ and apps/, so
 * each rule is about paths. tests/, bench/ and scripts/ stand outside and may import anything; no
 * package or app imports them. Type-only imports count: a type pulled from above is still a
 * dependency on that package, and a circle of types is still a circle.
 */

/** A rule that `from` imports no workspace file outside `allowed` (its own directory included). */
const onlyImports = (name, from, allowed) => ({
  name,
  severity: "error",
  comment: `${from} may import only ${allowed.join(", ")} from the workspace (docs/ARCHITECTURE.md)`,
  from: { path: `^${from}/` },
  to: { path: "^(packages|apps|tests|bench|scripts)/", pathNot: `^(${[from, ...allowed].map((path) => (path.endsWith("$") ? path : `${path}/`)).join("|")})` },
});

/**
 * Inside packages/domain/src (packages/domain/README.md): platform/ is the plumbing every feature stands on, features/<name>/
 * the rooms, each with one door, its index.ts. The third rule of the rooms, no two features importing each other both ways,
 * is scripts/check-dependencies.mjs (dependency-cruiser's folder rules see cycles of any length, not pairs).
 */
const DOMAIN = "packages/domain/src";
const domainRooms = [
  {
    name: "domain-platform-imports-no-feature",
    severity: "error",
    comment: "The platform names no feature: a feature plugs in through a door the platform declares (a registry, an event).",
    from: { path: `^${DOMAIN}/platform/`, pathNot: "\\.test\\.ts$" },
    to: { path: `^${DOMAIN}/features/` },
  },
  {
    name: "domain-feature-enters-another-by-its-door",
    severity: "error",
    comment: "A feature imports another only through its index.ts (its door), never a file inside it.",
    from: { path: `^${DOMAIN}/features/([^/]+)/` },
    to: { path: `^${DOMAIN}/features/`, pathNot: [`^${DOMAIN}/features/$1/`, `^${DOMAIN}/features/[^/]+/index\\.ts$`] },
  },
];

export default {
  forbidden: [
    ...domainRooms,
    {
      name: "no-circular",
      severity: "error",
      comment: "A module that imports itself through others: split out what both need.",
      from: {},
      to: { circular: true },
    },
    onlyImports("rules-imports-no-package", "packages/rules", []),
    onlyImports("config-imports-below-only", "packages/config", ["packages/rules"]),
    onlyImports("db-imports-below-only", "packages/db", ["packages/config", "packages/rules"]),
    // The scheduling engine: pure functions over plain inputs, no database, no configuration, no domain.
    onlyImports("scheduler-imports-rules-only", "packages/scheduler", ["packages/rules"]),
    onlyImports("domain-imports-below-only", "packages/domain", ["packages/scheduler", "packages/db", "packages/config", "packages/rules"]),
    onlyImports("api-imports-below-only", "packages/api", ["packages/domain", "packages/db", "packages/config", "packages/rules"]),
    onlyImports("worker-imports-below-only", "apps/worker", ["packages/domain", "packages/db", "packages/config", "packages/rules"]),
    onlyImports("cli-imports-below-only", "apps/cli", ["packages/domain", "packages/db", "packages/config", "packages/rules"]),
    onlyImports("server-imports-below-only", "apps/server", [
      "packages/api",
      "apps/worker",
      "packages/domain",
      "packages/db",
      "packages/config",
      "packages/rules",
    ]),
    // A plugin author's client: the protocol's schemas and nothing of the server.
    onlyImports("observatory-client-imports-rules-only", "packages/observatory-client", ["packages/rules"]),
    onlyImports("simulator-imports-client-and-rules-only", "apps/simulator", ["packages/observatory-client", "packages/rules"]),
    onlyImports("web-imports-rules-and-api-types-only", "apps/web", ["packages/rules", "packages/api/src/client-types\\.ts$"]),
    {
      name: "web-takes-only-api-types",
      severity: "error",
      comment: "The SPA imports @meridian/api/client for its types only: they are erased at build time, so no server code reaches the browser.",
      from: { path: "^apps/web/" },
      to: { path: "^packages/api/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "server-runs-worker-only",
      severity: "error",
      comment: "The server imports the worker only to run it in-process (MERIDIAN_ROLE=all): its entry, not its tasks.",
      from: { path: "^apps/server/" },
      to: { path: "^apps/worker/", pathNot: "^apps/worker/src/index\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|\\.turbo|\\.data)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".mts", ".js", ".mjs", ".d.ts", ".d.mts"],
      mainFields: ["module", "main", "types", "typings"],
    },
    skipAnalysisNotInRules: true,
  },
};

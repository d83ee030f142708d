// The type check and ESLint of one tsconfig's files over one TypeScript program, in one process (`pnpm test`'s static
// checks run one for the root tsconfig and one for the SPA's side by side). Run apart, `tsc -p` and ESLint's typed rules
// each built and checked the program again (ESLint's project service a second time, at about three times tsc's CPU).
// Here the program is built once, its files' diagnostics come from its checker, and ESLint's typed rules ask the same
// checker (`parserOptions.programs`). The root tsconfig holds the packages, the server-side apps, tests, bench and
// scripts; the SPA's (apps/web) holds its own files and the server-side ones its router types come from, which the root
// one checks: each file is type-checked and linted once, under its own tsconfig.
// Usage: node scripts/typecheck-and-lint.mjs tsconfig.json|apps/web/tsconfig.json; exits 1 on a type error, a lint
// error or a lint warning (as `eslint --max-warnings=0`).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import ts from "typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const web = path.join(root, "apps/web") + path.sep;
const inWeb = (file) => path.resolve(root, file).startsWith(web) && !file.includes("/node_modules/");
/** Per tsconfig: the files whose types it checks, and what ESLint lints with it. */
const PROJECTS = {
  "tsconfig.json": { checks: (file) => !inWeb(file), lint: ["."], ignorePatterns: ["apps/web/**"] },
  "apps/web/tsconfig.json": { checks: inWeb, lint: ["apps/web"], ignorePatterns: [] },
};

/** The program of one tsconfig, as `tsc -p` builds it, or the diagnostics of reading the tsconfig. */
function programOf(project) {
  const configDiagnostics = [];
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => configDiagnostics.push(diagnostic) };
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, project), undefined, host);
  if (!parsed) return { configDiagnostics };
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  });
  return { program, configDiagnostics };
}

/** What `tsc --noEmit` reports for the program, for the files this tsconfig checks. */
function typeDiagnostics(program, checks) {
  const diagnostics = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  const own = program.getSourceFiles().filter((file) => checks(file.fileName));
  for (const file of own) diagnostics.push(...program.getSyntacticDiagnostics(file));
  // Semantic diagnostics only when the syntax holds, as tsc does.
  if (diagnostics.length === 0) for (const file of own) diagnostics.push(...program.getSemanticDiagnostics(file));
  // The global ones again: checking the files can add some.
  return ts.sortAndDeduplicateDiagnostics([...diagnostics, ...program.getGlobalDiagnostics()]);
}

const project = process.argv[2];
const settings = PROJECTS[project];
if (!settings) {
  process.stderr.write(`Usage: node scripts/typecheck-and-lint.mjs ${Object.keys(PROJECTS).join("|")}\n`);
  process.exit(2);
}
const seconds = (started) => ((performance.now() - started) / 1000).toFixed(1);
const formatHost = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => "\n" };

let started = performance.now();
const { program, configDiagnostics } = programOf(project);
const diagnostics = program ? typeDiagnostics(program, settings.checks) : configDiagnostics;
if (diagnostics.length > 0) process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost));
process.stdout.write(`Types of ${project}: ${diagnostics.length} error(s), ${seconds(started)} s\n`);
if (!program) process.exit(1);

started = performance.now();
const eslint = new ESLint({
  cwd: root,
  ignorePatterns: settings.ignorePatterns,
  // eslint.config.js asks the project service for types (editors, `pnpm lint`); here the program above answers.
  overrideConfig: { files: ["**/*.{ts,tsx,mts,cts}"], languageOptions: { parserOptions: { projectService: false, programs: [program] } } },
});
const results = await eslint.lintFiles(settings.lint);
const output = await (await eslint.loadFormatter("stylish")).format(results);
if (output) process.stdout.write(output);
const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
const warnings = results.reduce((sum, result) => sum + result.warningCount, 0);
process.stdout.write(`ESLint with ${project}: ${results.length} files, ${errors} error(s), ${warnings} warning(s), ${seconds(started)} s\n`);

if (diagnostics.length > 0 || errors > 0 || warnings > 0) process.exit(1);

// Lines over 160 characters in code the formatter cannot break (strings, templates, JSON): each
// one is reported and the check fails. Markdown prose and tables, lockfiles and generated
// migrations are left alone.
import { execFileSync } from "node:child_process";
import fs from "node:fs";

const LIMIT = 160;
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { encoding: "utf8" })
  .split("\n")
  .filter((file) => /\.(ts|tsx|mjs|js|json|html|css|ya?ml|sh)$/.test(file) && !/(^|\/)(pnpm-lock\.yaml|migrations\/)/.test(file) && fs.existsSync(file));
const long = files.flatMap((file) =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, index) => (line.length > LIMIT ? [`${file}:${index + 1} (${line.length} characters)`] : [])),
);
if (long.length > 0) {
  process.stderr.write(`Lines over ${LIMIT} characters:\n${long.join("\n")}\n`);
  process.exit(1);
}

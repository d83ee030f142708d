#!/usr/bin/env bash
# `pnpm test`: build the web app (the browser tests serve it), then every vitest suite (unit,
# integration on real PostgreSQL and S3, end-to-end in Chromium) with the static checks running
# beside it: typecheck every package, lint (ESLint with types; dependency-cruiser for which
# package may import which and for import circles; knip for unused files, exports and
# dependencies), check the formatting and the line length.
#
# Beside, not before: the test files spend much of their time waiting on PostgreSQL, processes and
# sockets, and the checks (one core each, one after another) fill that time instead of adding
# about two minutes before the first test. Their output is printed once the tests end, and
# either failing fails the command.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
turbo run build --output-logs=errors-only

checks_log=$(mktemp)
trap 'rm -f "$checks_log"' EXIT
(
  set -e
  turbo run typecheck --output-logs=errors-only
  tsc --noEmit -p tsconfig.json
  eslint --max-warnings=0 .
  depcruise --config .dependency-cruiser.mjs packages apps tests bench scripts
  knip --no-progress
  prettier --check . --log-level warn
  node scripts/check-line-length.mjs
) >"$checks_log" 2>&1 &
checks=$!

tests_status=0
vitest run || tests_status=$?
checks_status=0
wait "$checks" || checks_status=$?

echo
if [ "$checks_status" -eq 0 ]; then
  echo "Static checks (typecheck, lint, formatting, line length): passed"
else
  echo "Static checks (typecheck, lint, formatting, line length): FAILED (exit $checks_status)"
fi
cat "$checks_log"
[ "$tests_status" -eq 0 ] && [ "$checks_status" -eq 0 ]

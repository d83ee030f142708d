#!/usr/bin/env bash
# `pnpm test`: build and typecheck every package, lint (ESLint with types; dependency-cruiser for which
# package may import which, the domain's rooms and import circles, and the pair check of features; knip for unused files, exports and dependencies),
# check the formatting, then the main lane of vitest (unit, integration on real PostgreSQL and S3,
# end-to-end in Chromium). The process lane (tests/processes/: processes spawned and killed, interrupted
# runs, the cluster) is `pnpm test:processes`; `pnpm test:all` (this script with `--all`) runs the main lane,
# then the process lane and the topology check side by side.
#
# The static checks run in two lanes at once, each keeping one core busy; beside vitest they only slowed it
# (129589a), so the tests wait for them. TypeScript's type check and ESLint's typed rules share one program
# per tsconfig (scripts/typecheck-and-lint.mjs): apart, `tsc -p tsconfig.json`, the SPA's `tsc` (whose
# program reaches the router and through it the domain) and ESLint's project service built and checked
# them again. CPU seconds of each step alone in a fresh clone (2026-11-30, load 12 to 20): before, tsc 43,
# the SPA's tsc 38, ESLint 155, prettier 29, depcruise and the pair check 11, knip 6, vite 3; now the root
# tsconfig's types and lint 72, the SPA's 69, the rest as they were. The whole static phase in a fresh
# clone, back to back at a load of 2 to 4: before 120 s wall, 223 s CPU; now 90 s wall, 166 s CPU. The
# lanes: the root tsconfig, prettier on all but the SPA and the line length; the SPA's build and tsconfig,
# dependencies, knip and prettier on the SPA. With prettier whole in the first, it ended 83 s in, the
# second 70 (CI run 20): the SPA's files (about a third of prettier's work) moved to the second.
# Each lane's output is printed once both end; either failing stops here.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1

root_log=$(mktemp)
rest_log=$(mktemp)
started=$SECONDS
trap 'rm -f "$root_log" "$rest_log"' EXIT
(
  set -e
  node scripts/typecheck-and-lint.mjs tsconfig.json
  prettier --check . '!apps/web/**' --log-level warn
  node scripts/check-line-length.mjs
  echo "Root lane (root types and ESLint, formatting but the SPA, line length): $((SECONDS - started)) s"
) >"$root_log" 2>&1 &
root_lane=$!
(
  set -e
  turbo run build --output-logs=errors-only
  node scripts/typecheck-and-lint.mjs apps/web/tsconfig.json
  node scripts/check-dependencies.mjs
  knip --no-progress
  prettier --check apps/web --log-level warn
  echo "Other lane (SPA build, types, ESLint and formatting, dependencies, knip): $((SECONDS - started)) s"
) >"$rest_log" 2>&1 &
rest_lane=$!

root_status=0
wait "$root_lane" || root_status=$?
rest_status=0
wait "$rest_lane" || rest_status=$?
cat "$root_log" "$rest_log"
if [ "$root_status" -ne 0 ] || [ "$rest_status" -ne 0 ]; then
  echo "Static checks FAILED (types and ESLint of the root tsconfig, formatting, line length: exit $root_status;" \
    "the SPA's build, types and ESLint, dependencies, knip: exit $rest_status)"
  exit 1
fi
echo "Static checks passed (build, typecheck, ESLint, dependencies, knip, formatting, line length)"

# `pnpm test:all` (`--all`): every lane in one vitest, the main lane first, then the process lane and the
# topology check side by side (their group order in vitest.config.ts).
if [ "${1:-}" = "--all" ]; then
  vitest run --project unit --project integration --project processes --project topology
else
  vitest run --project unit --project integration
fi

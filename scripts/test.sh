#!/usr/bin/env bash
# `pnpm test`: build and typecheck every package, lint (ESLint with types; dependency-cruiser for which
# package may import which and for import circles; knip for unused files, exports and dependencies),
# check the formatting, then every vitest suite (unit, integration on real PostgreSQL and S3,
# end-to-end in Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
turbo run build typecheck --output-logs=errors-only
tsc --noEmit -p tsconfig.json
eslint --max-warnings=0 .
depcruise --config .dependency-cruiser.mjs packages apps tests bench scripts
knip --no-progress
prettier --check . --log-level warn
node scripts/check-line-length.mjs
vitest run

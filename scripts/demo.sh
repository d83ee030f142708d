#!/usr/bin/env bash
# `pnpm demo`: build what is not built yet (the SPA), then run the server, its worker and two simulated observatories.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
export ADMIN_EMAIL="${ADMIN_EMAIL:-admin@demo.meridian.local}" ADMIN_PASSWORD="${ADMIN_PASSWORD:-meridian demo password}"
turbo run build --output-logs=errors-only
exec node --import tsx scripts/demo.ts

#!/usr/bin/env bash
# `pnpm start` (server and worker in one process) and `pnpm start:server` (MERIDIAN_ROLE=server):
# build what is not built yet (the SPA), then run the server.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true

# Frame analysis drives the field's tools: Debian's source-extractor and astrometry.net's solve-field
# with the Tycho-2 index files (STAR_CATALOG_DIR, default /usr/share/astrometry). As root on Debian
# they are installed when missing, as `pnpm cluster` does nginx; elsewhere one line says how, and
# frames are measured and graded without a plate solution until then.
FRAME_PACKAGES=""
command -v source-extractor >/dev/null 2>&1 || FRAME_PACKAGES="$FRAME_PACKAGES source-extractor"
command -v solve-field >/dev/null 2>&1 || FRAME_PACKAGES="$FRAME_PACKAGES astrometry.net"
if [ -z "${STAR_CATALOG_DIR:-}" ] && ! ls /usr/share/astrometry/index-*.fits >/dev/null 2>&1; then
  FRAME_PACKAGES="$FRAME_PACKAGES astrometry-data-tycho2-10-19"
fi
if [ -n "$FRAME_PACKAGES" ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing$FRAME_PACKAGES with apt-get (frame analysis and plate solving)…"
    # shellcheck disable=SC2086
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $FRAME_PACKAGES >/dev/null; then
      # shellcheck disable=SC2086
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $FRAME_PACKAGES >/dev/null ||
        echo "could not install$FRAME_PACKAGES: frames are measured and graded without a plate solution until they are installed"
    fi
  else
    echo "Frames are not plate-solved until these are installed: sudo apt-get install$FRAME_PACKAGES (or set STAR_CATALOG_DIR to astrometry.net index files)"
  fi
fi

turbo run build --output-logs=errors-only
exec node --import tsx apps/server/src/main.ts

#!/bin/sh
# Container entrypoint of the Meridian image.
#
#   server   HTTP API, SPA and WebSocket only (MERIDIAN_ROLE=server): scale these behind a proxy
#   worker   background jobs only (graphile-worker): scale these independently
#   all      server and worker in one process (MERIDIAN_ROLE=all), for a single small instance
#   <other>  run that command instead (e.g. `sh`, `node infra/probe.mjs auto`)
#
# `exec` hands PID 1 to Node, so SIGTERM from `docker stop` / Kubernetes reaches the process,
# which stops HTTP, then the worker, then the database pools. Each app is started from its own
# directory because `--import tsx` resolves `tsx` from the working directory and the production
# install keeps `tsx` as a dependency of apps/server and apps/worker only (not of the root).
set -eu

role="${1:-server}"
# Tell infra/probe.mjs (HEALTHCHECK, exec probes) which role this container runs: health
# commands see the container's environment, not the variables exported below.
case "$role" in
  server | all | worker) { echo "$role" > /tmp/meridian-role; } 2>/dev/null || true ;;
esac
case "$role" in
  server | all)
    if [ "$role" = "server" ]; then export MERIDIAN_ROLE=server; else export MERIDIAN_ROLE=all; fi
    cd /app/apps/server
    exec node --import tsx src/main.ts
    ;;
  worker)
    export MERIDIAN_ROLE=worker
    cd /app/apps/worker
    exec node --import tsx src/main.ts
    ;;
  *)
    exec "$@"
    ;;
esac

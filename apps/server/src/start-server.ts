import type { AddressInfo } from "node:net";
import { createServer, type RequestListener, type Server, type ServerOptions } from "node:http";
import { serve } from "@hono/node-server";
import { attachWebSocketHub, createApiApp, observatoryProtocol, userProtocol, type WebSocketHub } from "@meridian/api";
import type { Env, Logger } from "@meridian/config";
import { randomUUID } from "node:crypto";
import { joinServerPresence, listeningUrl, SERVER_APPLICATION_PREFIX, startRuntime, type Runtime } from "@meridian/domain/platform";
import { checkStarCatalog } from "@meridian/domain/frames";
import { ensureServerAdmin } from "@meridian/domain/auth";
import { notifyServerStart } from "@meridian/domain/system";
import { startWorker, type RunningWorker } from "@meridian/worker";
import { answerRequestsBeforeBadBytes } from "./client-errors";
import { lingerAfterEarlyAnswers } from "./lingering-close";
import { trackHttpDrain, type HttpDrain } from "./http-drain";
import { defaultWebDistDir, mountSpa } from "./spa";

export interface RunningServer {
  url: string;
  port: number;
  runtime: Runtime;
  worker: RunningWorker | undefined;
  hub: WebSocketHub;
  /** Stops in order: HTTP and WebSocket, then the worker, then pools, then embedded servers. */
  stop(): Promise<void>;
}

/**
 * What a server process holds besides HTTP and sockets: the runtime (database, object storage, secrets,
 * caches) named as a server in pg_stat_activity, and the server admin of ADMIN_EMAIL. Tests of the domain
 * without HTTP (tests/support/test-runtime.ts) build theirs here too. The runtime is stopped if a step fails.
 */
export async function openServerRuntime(options: { env: Env; logger: Logger; runtime?: Runtime }): Promise<Runtime> {
  const { env, logger } = options;
  const applicationName = `${SERVER_APPLICATION_PREFIX}${randomUUID()}`;
  const runtime = options.runtime ?? (await startRuntime({ env, logger, kind: env.MERIDIAN_ROLE, applicationName }));
  try {
    if (env.ADMIN_EMAIL && env.ADMIN_PASSWORD) {
      const outcome = await ensureServerAdmin({ deps: runtime.deps, email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD });
      if (outcome !== "unchanged") logger.info({ email: env.ADMIN_EMAIL, outcome }, "server admin ensured");
    }
    return runtime;
  } catch (error) {
    await runtime.stop().catch((stopError: unknown) => logger.error({ err: stopError }, "error during shutdown"));
    throw error;
  }
}

/** The worker a server of role `all` runs in its own process, on the server's runtime. */
export function startServerWorker(runtime: Runtime): Promise<RunningWorker> {
  return startWorker({ deps: runtime.deps, databaseUrl: runtime.databaseUrl, applicationName: runtime.applicationName });
}

export async function startServer(options: { env: Env; logger: Logger; runtime?: Runtime; notifyAdmins?: boolean }): Promise<RunningServer> {
  const { env, logger } = options;
  const startedAt = new Date();
  const runtime = await openServerRuntime(options);
  const { deps } = runtime;
  // Whatever has started is stopped in reverse order, also when a later step fails.
  const cleanups: Array<() => Promise<void>> = [() => runtime.stop()];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => logger.error({ err: error }, "error during shutdown"));
  };

  try {
    // The hub needs the HTTP server and health needs the hub: resolve the cycle with a holder.
    const hubHolder: { hub?: WebSocketHub } = {};
    const drainHolder: { drain?: HttpDrain } = {};
    const { app, withDirectReads } = createApiApp({
      deps,
      startedAt,
      websocketStatus: () => hubHolder.hub?.status() ?? { running: false, connections: 0 },
      isDraining: () => drainHolder.drain?.draining ?? false,
    });
    mountSpa(app, env.WEB_DIST_DIR ?? defaultWebDistDir);

    const server = await new Promise<Server>((resolve, reject) => {
      // The hot reads are answered in front of Hono's pipeline, which answers everything else (ADR 0026).
      const createServerWithDirectReads = (options: ServerOptions, pipeline: RequestListener) => createServer(options, withDirectReads(pipeline));
      const created = serve({ fetch: app.fetch, port: env.PORT, hostname: env.HOST, createServer: createServerWithDirectReads as typeof createServer }, () => {
        created.off("error", reject);
        resolve(created as Server);
      });
      created.once("error", reject);
    });
    server.keepAliveTimeout = env.HTTP_KEEP_ALIVE_TIMEOUT_MS;
    answerRequestsBeforeBadBytes(server);
    lingerAfterEarlyAnswers(server);
    const drain = trackHttpDrain(server, { idleGraceMs: env.SHUTDOWN_IDLE_GRACE_MS });
    drainHolder.drain = drain;
    cleanups.push(() => drain.start());
    const port = (server.address() as AddressInfo).port;
    const url = listeningUrl({ host: env.HOST, port });
    // Links in emails point here when PUBLIC_URL is unset (the worker below shares these deps).
    deps.listeningOn = url;
    if (!env.PUBLIC_URL) logger.info({ url }, "PUBLIC_URL is not set: links in emails point at this address");
    const hub = await attachWebSocketHub({ server, deps, protocols: [userProtocol, observatoryProtocol] });
    hubHolder.hub = hub;
    cleanups.push(() => hub.close());
    // First of all, while the hub closes: readiness 503, no new connections, answers say close.
    cleanups.push(async () => void drain.start());

    const worker = env.MERIDIAN_ROLE === "all" ? await startServerWorker(runtime) : undefined;
    if (worker) cleanups.splice(1, 0, () => worker.stop());
    const notifyAdmins = options.notifyAdmins !== false;
    const presence = await joinServerPresence({
      deps,
      onClusterStart: notifyAdmins ? () => notifyServerStart({ deps, listeningOn: env.PUBLIC_URL ?? url }) : undefined,
    });
    // Left just before the pools close, after HTTP, the hub and the worker have stopped.
    cleanups.splice(1, 0, () => presence.leave());
    if (notifyAdmins) await checkStarCatalog({ deps });

    return { url, port, runtime, worker, hub, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { createApiApp } from "@meridian/api";
import type { Env, Logger } from "@meridian/config";
import { ensureServerAdmin, notifyServerStart, startRuntime, type Runtime } from "@meridian/domain";
import { startWorker, type RunningWorker } from "@meridian/worker";
import { attachRealtimeHub, type RealtimeHub } from "./realtime-hub";
import { defaultWebDistDir, mountSpa } from "./spa";

export interface RunningServer {
  url: string;
  port: number;
  runtime: Runtime;
  worker: RunningWorker | undefined;
  hub: RealtimeHub;
  /** Stops in order: HTTP and WebSocket, then the worker, then pools, then embedded servers. */
  stop(): Promise<void>;
}

export async function startServer(options: { env: Env; logger: Logger; runtime?: Runtime; notifyAdmins?: boolean }): Promise<RunningServer> {
  const { env, logger } = options;
  const startedAt = new Date();
  const runtime = options.runtime ?? (await startRuntime({ env, logger }));
  const { deps } = runtime;

  if (env.ADMIN_EMAIL && env.ADMIN_PASSWORD) {
    const outcome = await ensureServerAdmin({ deps, email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD });
    if (outcome !== "unchanged") logger.info({ email: env.ADMIN_EMAIL, outcome }, "server admin ensured");
  }

  // The hub needs the HTTP server and health needs the hub: resolve the cycle with a holder.
  const hubHolder: { hub?: RealtimeHub } = {};
  const app = createApiApp({ deps, startedAt, websocketStatus: () => hubHolder.hub?.status() ?? { running: false, connections: 0 } });
  mountSpa(app, env.WEB_DIST_DIR ?? defaultWebDistDir);

  const server = await new Promise<Server>((resolve) => {
    const created = serve({ fetch: app.fetch, port: env.PORT, hostname: env.HOST }, () => resolve(created as Server));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${env.HOST === "0.0.0.0" ? "127.0.0.1" : env.HOST}:${port}`;
  const hub = await attachRealtimeHub({ server, deps, publicUrl: env.PUBLIC_URL });
  hubHolder.hub = hub;

  const worker = env.MERIDIAN_ROLE === "all" ? await startWorker({ deps, databaseUrl: runtime.databaseUrl }) : undefined;
  if (options.notifyAdmins !== false) await notifyServerStart({ deps, listeningOn: env.PUBLIC_URL ?? url });

  let stopped = false;
  return {
    url,
    port,
    runtime,
    worker,
    hub,
    async stop() {
      if (stopped) return;
      stopped = true;
      await hub.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
      await worker?.stop();
      await runtime.stop();
    },
  };
}

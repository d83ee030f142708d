import { Server as NetServer } from "node:net";
import type { IncomingMessage, Server, ServerResponse } from "node:http";

/** How long requests in flight may take once the process is told to stop; then connections are cut. */
const DRAIN_MS = 10_000;

export interface HttpDrain {
  /** True from the moment `start` was called: readiness answers 503 so load balancers stop sending. */
  readonly draining: boolean;
  /**
   * At once: stop listening (a new connection is refused, never reset) and ask every response not
   * yet sent to close its connection. Then wait until every connection has ended.
   */
  start(): Promise<void>;
}

/**
 * Shutdown of the HTTP side in the order a load balancer and keep-alive clients need:
 * 1. readiness turns 503 and the listening socket closes in the same instant, before any answer
 *    tells a client to reconnect (so a reconnect finds the port closed instead of a socket that
 *    is reset in the accept queue);
 * 2. requests in flight are answered with `Connection: close`, so keep-alive clients let go;
 * 3. idle keep-alive connections get `idleGraceMs` (SHUTDOWN_IDLE_GRACE_MS) to bring one more request, which is answered
 *    the same way, before they are closed: a request sent just as the signal came is answered
 *    instead of reset;
 * 4. after DRAIN_MS whatever is left is cut.
 */
export function trackHttpDrain(server: Server, options: { idleGraceMs: number }): HttpDrain {
  const pending = new Set<ServerResponse>();
  let finished: Promise<void> | undefined;
  server.on("request", (_request: IncomingMessage, response: ServerResponse) => {
    if (finished) return response.setHeader("connection", "close");
    pending.add(response);
    response.once("close", () => pending.delete(response));
  });
  return {
    get draining() {
      return finished !== undefined;
    },
    start() {
      finished ??= new Promise<void>((resolve) => {
        for (const response of pending) if (!response.headersSent) response.setHeader("connection", "close");
        const idle = setTimeout(() => server.closeIdleConnections(), options.idleGraceMs);
        const force = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
        idle.unref();
        force.unref();
        // http.Server#close would also destroy idle keep-alive connections at once; net.Server's only stops listening.
        NetServer.prototype.close.call(server, () => {
          clearTimeout(idle);
          clearTimeout(force);
          resolve();
        });
      });
      return finished;
    },
  };
}

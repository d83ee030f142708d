import type { Deps } from "../deps";

/** Where a server listening on `host:port` is reached from this machine: a wildcard address at 127.0.0.1. */
export function listeningUrl(options: { host: string; port: number }): string {
  const { host, port } = options;
  const reachable = host === "0.0.0.0" || host === "::" || host === "" ? "127.0.0.1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * The origin every link in an email points at, always absolute: PUBLIC_URL when it is set; else
 * the address the request reached, when the email answers a request of its own recipient (a
 * password reset); else the address this process's server listens on (`deps.listeningOn`, what
 * the server prints at start); else, in a process without a server, HOST and PORT.
 */
function siteOrigin(options: { deps: Pick<Deps, "env" | "listeningOn">; requestOrigin?: string }): string {
  const { deps, requestOrigin } = options;
  if (deps.env.PUBLIC_URL) return new URL(deps.env.PUBLIC_URL).origin;
  return new URL(requestOrigin ?? deps.listeningOn ?? listeningUrl({ host: deps.env.HOST, port: deps.env.PORT })).origin;
}

/**
 * The one link builder for emails (and the pushes beside them): `path` inside the SPA, which is
 * served under /app, as an absolute URL a mail client can open.
 */
export function appLink(options: { deps: Pick<Deps, "env" | "listeningOn">; path: string; requestOrigin?: string }): string {
  const { deps, path } = options;
  return new URL(`/app${path.startsWith("/") ? path : `/${path}`}`, siteOrigin({ deps, requestOrigin: options.requestOrigin })).toString();
}

import { createMailTransport, type Deps, type MailTransport } from "@meridian/domain";

/**
 * Per worker: the announcement fan-out sends over pooled SMTP connections, reused by every email
 * job; single emails (password reset, start notices) keep a connection each, as few as they are.
 */
const transports = { pooled: new WeakMap<Deps, MailTransport>(), single: new WeakMap<Deps, MailTransport>() };

export function mailTransportFor(deps: Deps, kind: "pooled" | "single"): MailTransport {
  let transport = transports[kind].get(deps);
  if (!transport) {
    transport = createMailTransport(deps.env, { pooled: kind === "pooled" });
    transports[kind].set(deps, transport);
  }
  return transport;
}

/** Closes the pooled connections when the worker stops, so the SMTP server is not left waiting on idle ones. */
export function closeMailTransport(deps: Deps) {
  for (const cache of Object.values(transports)) {
    cache.get(deps)?.close();
    cache.delete(deps);
  }
}

import type { Deps } from "../deps";
import { createMailTransport, type MailTransport } from "./transport";

/**
 * One transport per worker, over pooled SMTP connections (SMTP_POOL_SIZE) that every email job
 * reuses: a handshake per message would cost more than the message.
 */
const transports = new WeakMap<Deps, MailTransport>();

export function mailTransportFor(deps: Deps): MailTransport {
  let transport = transports.get(deps);
  if (!transport) {
    transport = createMailTransport({ env: deps.env, pooled: true });
    transports.set(deps, transport);
  }
  return transport;
}

/** Closes the pooled connections when the worker stops, so the SMTP server is not left waiting on idle ones. */
export function closeMailTransport(deps: Deps) {
  transports.get(deps)?.close();
  transports.delete(deps);
}

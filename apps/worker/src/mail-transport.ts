import { createMailTransport, type Deps, type MailTransport } from "@meridian/domain";

const transports = new WeakMap<Deps, MailTransport>();

/** One mail transport per worker (its SMTP connections are pooled and reused by every email task). */
export function mailTransportFor(deps: Deps): MailTransport {
  let transport = transports.get(deps);
  if (!transport) {
    transport = createMailTransport(deps.env);
    transports.set(deps, transport);
  }
  return transport;
}

/** Closes the pooled connections when the worker stops, so the SMTP server is not left waiting on idle ones. */
export function closeMailTransport(deps: Deps) {
  transports.get(deps)?.close();
  transports.delete(deps);
}

import type { Deps, ErrorCode } from "@meridian/domain";
import { toAppError } from "../http/problem";
import type { ProtocolConnection, ProtocolDefinition } from "./protocol";

type AnyProtocol = ProtocolDefinition<unknown, { type: string }>;

/**
 * Parses one client message with the protocol's union and runs its handler. Every message gets
 * exactly one reply: the protocol's ack, or its error. Nothing a client sends can throw out of
 * here: a bad message costs that client an error reply, never the process or other sockets.
 */
export async function handleMessage(options: {
  protocol: AnyProtocol;
  deps: Deps;
  session: unknown;
  connection: ProtocolConnection;
  raw: string;
}): Promise<void> {
  const { protocol, deps, session, connection } = options;
  let parsed: unknown;
  try {
    parsed = JSON.parse(options.raw);
  } catch {
    return connection.send(protocol.replies.error(undefined, "VALIDATION_FAILED", "Messages must be JSON"));
  }
  const readable = parsed && typeof parsed === "object" ? (parsed as { type?: unknown; id?: unknown }) : undefined;
  const type = readable?.type;
  const handlers = protocol.handlers as Record<string, (context: unknown) => unknown>;
  if (typeof type !== "string" || !Object.hasOwn(handlers, type))
    return connection.send(protocol.replies.error(readable, "VALIDATION_FAILED", "Unknown message type"));
  const result = protocol.messages.safeParse(parsed);
  if (!result.success) {
    const detail = result.error.issues.map((issue) => `${issue.path.join(".") || "message"}: ${issue.message}`).join("; ");
    return connection.send(protocol.replies.error(readable, "VALIDATION_FAILED", detail));
  }
  try {
    const outcome = await handlers[type]!({ deps, session, message: result.data, connection });
    connection.send(protocol.replies.ack(result.data, outcome));
  } catch (error) {
    // As on HTTP: a database with no connection to give is SERVICE_UNAVAILABLE (send it again
    // shortly), not INTERNAL. Only what nobody expected is logged and answered without details.
    const answer = toAppError(error);
    if (answer === error || answer.code !== "INTERNAL")
      return connection.send(protocol.replies.error(readable, answer.code, answer.message, answer.retryAfterSeconds));
    deps.logger.error({ err: error, type }, "WebSocket message handler failed");
    connection.send(protocol.replies.error(readable, "INTERNAL", "The message could not be handled"));
  }
}

/**
 * Answers a message without handling it (it came faster than its protocol's rate allows): one
 * error reply, with the message's id when one is readable, in its turn among the replies.
 */
export function refuseMessage(options: {
  protocol: AnyProtocol;
  connection: ProtocolConnection;
  raw: string;
  code: ErrorCode;
  detail: string;
  retryAfter?: number;
}) {
  let readable: { type?: unknown; id?: unknown } | undefined;
  try {
    const parsed: unknown = JSON.parse(options.raw);
    readable = parsed && typeof parsed === "object" ? (parsed as { type?: unknown; id?: unknown }) : undefined;
  } catch {
    readable = undefined;
  }
  options.connection.send(options.protocol.replies.error(readable, options.code, options.detail, options.retryAfter));
}

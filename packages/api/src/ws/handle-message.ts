import { noteDatabaseOutOfSpace } from "@meridian/domain/health";
import { type Deps, type ErrorCode } from "@meridian/domain/platform";
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
    noteDatabaseOutOfSpace({ deps, error });
    const answer = toAppError(error);
    if (answer === error || answer.code !== "INTERNAL")
      return connection.send(protocol.replies.error(readable, answer.code, answer.message, answer.retryAfterSeconds));
    deps.logger.error({ err: error, type }, "WebSocket message handler failed");
    connection.send(protocol.replies.error(readable, "INTERNAL", "The message could not be handled"));
  }
}

/** The longest `type` and `id` kept of a message answered without being handled; a longer one is not echoed. */
const HEAD_LIMIT = 200;

/**
 * What a refusal needs of a message it will not handle, its `type` and `id`, read once when the
 * message arrives: a refusal waiting for its turn keeps these few characters, not the message.
 */
export function messageHead(raw: string): { type?: string; id?: string | number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object") return undefined;
  const { type, id } = parsed as { type?: unknown; id?: unknown };
  const short = (value: unknown) => (typeof value === "string" && value.length <= HEAD_LIMIT) || typeof value === "number";
  return { ...(short(type) && typeof type === "string" ? { type } : {}), ...(short(id) ? { id: id as string | number } : {}) };
}

/**
 * Answers a message without handling it (it came faster than its protocol's rate allows, or it is
 * larger than the protocol handles): one error reply, with the message's id when one was readable,
 * in its turn among the replies.
 */
export function refuseMessage(options: {
  protocol: AnyProtocol;
  connection: ProtocolConnection;
  head: ReturnType<typeof messageHead>;
  code: ErrorCode;
  detail: string;
  retryAfter?: number;
}) {
  options.connection.send(options.protocol.replies.error(options.head, options.code, options.detail, options.retryAfter));
}

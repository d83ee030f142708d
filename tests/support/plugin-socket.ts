import { serverToPluginMessageSchema, type PluginMessageBody, type ServerReply, type ServerToPluginMessage } from "@meridian/rules/observatory-protocol";
import WebSocket from "ws";
import { connectWebSocket, type OpenClient } from "./ws-client";

/** An ack or an error; `code` and `message` are read as absent on an ack. */
export type PluginReply = ServerReply & { code?: string; message?: string; retryAfter?: number };

export interface PluginSocket {
  client: OpenClient;
  /** The close code, once the socket has closed. */
  closed: Promise<number>;
  /** Sends a message with a fresh id and returns the id, without waiting for the reply. */
  send(message: PluginMessageBody): string;
  /** The reply to the message sent with `id`, once it has come. */
  replyTo(id: string): Promise<PluginReply>;
  /** Sends a message and waits for its reply. */
  ask(message: PluginMessageBody): Promise<PluginReply>;
  /** Every message received so far. */
  received(): ServerToPluginMessage[];
  /** Every reply (ack or error) received so far. */
  replies(): PluginReply[];
}

let counter = 0;

/** Read with the protocol's shared schema: a message the server sends off the schema fails the test that reads it. */
const read = (message: unknown): ServerToPluginMessage => serverToPluginMessageSchema.parse(message);
const isReply = (message: ServerToPluginMessage): message is ServerReply => message.type === "ack" || message.type === "error";

/**
 * A bare `/ws/observatory` connection with an observatory key, for tests that need to send exactly
 * what a plugin might (any valid message, at any pace; invalid JSON goes through `client.ws`).
 */
export async function openPluginSocket(serverUrl: string, key: string): Promise<PluginSocket> {
  const attempt = await connectWebSocket(`${serverUrl.replace(/^http/, "ws")}/ws/observatory`, { authorization: `Bearer ${key}` });
  if (!attempt.ok) throw new Error(`upgrade refused: ${attempt.status} ${attempt.body}`);
  const { client } = attempt;
  const closed = new Promise<number>((resolve) => client.ws.once("close", (code) => resolve(code)));
  const received = () => client.messages.map(read);
  const send = (message: PluginMessageBody) => {
    counter += 1;
    const id = `m${counter}`;
    if (client.ws.readyState === WebSocket.OPEN) client.ws.send(JSON.stringify({ ...message, id }));
    return id;
  };
  const replyTo = async (id: string) => {
    const reply = read(await client.waitFor((message) => (message as { id?: unknown }).id === id, `the reply to ${id}`));
    if (!isReply(reply)) throw new Error(`${id} was answered with ${reply.type}`);
    return reply;
  };
  return { client, closed, send, replyTo, ask: (message) => replyTo(send(message)), received, replies: () => received().filter(isReply) };
}

import WebSocket from "ws";
import { connectWebSocket, type OpenClient } from "./ws-client";

export type PluginReply = { type: string; id?: unknown; code?: string; message?: string } & Record<string, unknown>;

export interface PluginSocket {
  client: OpenClient;
  /** The close code, once the socket has closed. */
  closed: Promise<number>;
  /** Sends a message with a fresh id and returns the id, without waiting for the reply. */
  send(message: Record<string, unknown>): string;
  /** The reply to the message sent with `id`, once it has come. */
  replyTo(id: string): Promise<PluginReply>;
  /** Sends a message and waits for its reply. */
  ask(message: Record<string, unknown>): Promise<PluginReply>;
  /** Every reply (ack or error) received so far. */
  replies(): PluginReply[];
}

let counter = 0;

/** A bare `/ws/observatory` connection with an observatory key, for tests that need to send exactly what a plugin might. */
export async function openPluginSocket(serverUrl: string, key: string): Promise<PluginSocket> {
  const attempt = await connectWebSocket(`${serverUrl.replace(/^http/, "ws")}/ws/observatory`, { authorization: `Bearer ${key}` });
  if (!attempt.ok) throw new Error(`upgrade refused: ${attempt.status} ${attempt.body}`);
  const { client } = attempt;
  const closed = new Promise<number>((resolve) => client.ws.once("close", (code) => resolve(code)));
  const replies = () => (client.messages as unknown as PluginReply[]).filter((message) => message.type === "ack" || message.type === "error");
  const send = (message: Record<string, unknown>) => {
    counter += 1;
    const id = `m${counter}`;
    if (client.ws.readyState === WebSocket.OPEN) client.ws.send(JSON.stringify({ ...message, id }));
    return id;
  };
  const replyTo = async (id: string) => (await client.waitFor((message) => (message as PluginReply).id === id, `the reply to ${id}`)) as unknown as PluginReply;
  return { client, closed, send, replyTo, ask: (message) => replyTo(send(message)), replies };
}

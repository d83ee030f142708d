/**
 * bench/observatory-connections.ts's peer: a bare `ws` server that acks each message by its id, as
 * the plugin protocol does, and nothing else. Sends its port to the parent once it listens.
 */
import { WebSocketServer } from "ws";
import { answerMemoryQueries } from "./memory-probe";

answerMemoryQueries();
const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
server.on("connection", (socket) =>
  socket.on("message", (raw) => socket.send(JSON.stringify({ type: "ack", id: (JSON.parse(raw.toString()) as { id: string }).id }))),
);
server.on("listening", () => process.send?.({ listening: `ws://127.0.0.1:${(server.address() as { port: number }).port}` }));

import WebSocket from "ws";

/** Each plugin socket heartbeats every 30 s, the sockets spread evenly over the interval. */
export function heartbeatsSpread(sockets: WebSocket[], intervalMs = 30_000) {
  const timers: NodeJS.Timeout[] = [];
  const beat = (socket: WebSocket) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify({ type: "heartbeat", id: "beat" }));
  sockets.forEach((socket, index) => {
    timers.push(
      setTimeout(
        () => {
          beat(socket);
          timers.push(setInterval(() => beat(socket), intervalMs));
        },
        (index * intervalMs) / sockets.length,
      ),
    );
  });
  return { stop: () => timers.forEach((timer) => clearInterval(timer)) };
}

import WebSocket from "ws";

export interface Received {
  type: string;
  data?: unknown;
}

export interface OpenClient {
  ws: WebSocket;
  messages: Received[];
  /** The first message (already received or still to come) that matches; fails after `timeoutMs` naming `what`. */
  waitFor(predicate: (message: Received) => boolean, what?: string, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
}

export type Attempt = { ok: true; client: OpenClient } | { ok: false; status: number; body: string; headers: Record<string, string | string[] | undefined> };

/** Opens a WebSocket and reports either the open client or the HTTP status and body of the refused upgrade. */
export function connectWebSocket(url: string, headers: Record<string, string> = {}): Promise<Attempt> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const messages: Received[] = [];
    const waiters = new Set<() => void>();
    ws.on("message", (raw) => {
      messages.push(JSON.parse(raw.toString()) as Received);
      for (const wake of [...waiters]) wake();
    });
    ws.on("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ ok: false, status: response.statusCode ?? 0, body, headers: response.headers }));
      response.on("error", () => resolve({ ok: false, status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    ws.on("error", reject);
    ws.on("open", () => {
      const client: OpenClient = {
        ws,
        messages,
        waitFor(predicate, what = "a matching message", timeoutMs = 20_000) {
          return new Promise((resolveWait, rejectWait) => {
            const check = () => {
              const found = messages.find(predicate);
              if (!found) return false;
              clearTimeout(timer);
              waiters.delete(check);
              resolveWait(found);
              return true;
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              rejectWait(new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(messages)}`));
            }, timeoutMs);
            if (!check()) waiters.add(check);
          });
        },
        close: () =>
          new Promise<void>((resolveClose) => {
            if (ws.readyState === WebSocket.CLOSED) return resolveClose();
            ws.once("close", () => resolveClose());
            ws.close();
          }),
      };
      resolve({ ok: true, client });
    });
  });
}

/** An open, signed-in socket: the upgrade must succeed and the server's welcome must arrive. */
export async function openWebSocket(url: string, headers: Record<string, string> = {}): Promise<OpenClient> {
  const attempt = await connectWebSocket(url, headers);
  if (!attempt.ok) throw new Error(`upgrade refused with ${attempt.status}: ${attempt.body}`);
  await attempt.client.waitFor((message) => message.type === "welcome", "welcome");
  return attempt.client;
}

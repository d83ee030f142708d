import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedPush {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A local stand-in for push services: web push endpoints under `/push/<name>` (a name starting
 * `gone` answers 410, as a push service does for a dead subscription) and a Pushover-style
 * messages endpoint at `/pushover` that keeps each form it receives.
 */
export async function startPushReceivers() {
  const pushes: ReceivedPush[] = [];
  const pushoverForms: Array<Record<string, string>> = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const path = request.url ?? "/";
      if (path === "/pushover") {
        pushoverForms.push(Object.fromEntries(new URLSearchParams(body.toString())));
        response.writeHead(200, { "content-type": "application/json" }).end('{"status":1}');
        return;
      }
      pushes.push({ path, headers: request.headers, body });
      response.writeHead(path.startsWith("/push/gone") ? 410 : 201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    pushoverUrl: `${url}/pushover`,
    pushes,
    pushoverForms,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

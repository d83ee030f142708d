import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What a receiver was sent: each request's method, path and headers, in order. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  bytes: number;
}

const bodyOf = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
};

/** OAuth's refresh-token exchange as Dropbox and Google document it, with tokens that expire after `expiresIn` seconds. */
function tokenIssuer(client: { id: string; secret: string; refreshToken: string }) {
  const live = new Map<string, number>();
  const state = { expiresIn: 3600, issued: 0, refused: 0 };
  return {
    state,
    async exchange(request: IncomingMessage, response: ServerResponse) {
      const form = new URLSearchParams((await bodyOf(request)).toString());
      const good =
        request.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") &&
        form.get("grant_type") === "refresh_token" &&
        form.get("refresh_token") === client.refreshToken &&
        form.get("client_id") === client.id &&
        form.get("client_secret") === client.secret;
      if (!good) return json(response, 400, { error: "invalid_grant" });
      state.issued += 1;
      const token = `token-${state.issued}-${Math.random().toString(36).slice(2)}`;
      live.set(token, Date.now() + state.expiresIn * 1000);
      json(response, 200, { access_token: token, expires_in: state.expiresIn, token_type: "bearer" });
    },
    /** A bearer token that was issued and has not expired; otherwise the request is answered 401. */
    authorized(request: IncomingMessage, response: ServerResponse) {
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
      const until = token ? live.get(token) : undefined;
      if (until !== undefined && until > Date.now()) return true;
      state.refused += 1;
      json(response, 401, { error_summary: "expired_access_token/", error: { ".tag": "expired_access_token" } });
      return false;
    },
  };
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>) {
  const server = createServer((request, response) => {
    handler(request, response).catch((error: Error) => json(response, 500, { error: error.message }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * Dropbox's token, upload, upload-session, metadata and delete endpoints on 127.0.0.1 (API and
 * content on one address), checking the documented request shapes; `failNext` answers the next
 * upload requests with a status (and Retry-After) instead; with `control.holdUploads` an upload
 * waits, body received, until its entry in `held` is called.
 */
export async function startDropboxReceiver(client = { id: "dropbox-app-key", secret: "dropbox-app-secret", refreshToken: "dropbox-refresh-token" }) {
  const tokens = tokenIssuer(client);
  const files = new Map<string, Buffer>();
  const sessions = new Map<string, Buffer[]>();
  const requests: ReceivedRequest[] = [];
  const problems: string[] = [];
  const failNext: Array<{ status: number; retryAfter?: string }> = [];
  const control = { holdUploads: false };
  const held: Array<() => void> = [];
  const argOf = (request: IncomingMessage) => JSON.parse(String(request.headers["dropbox-api-arg"] ?? "null")) as Record<string, unknown> | null;
  const checkCommit = (commit: Record<string, unknown>) => {
    if (commit.mode !== "add" || commit.autorename !== false || commit.mute !== true || typeof commit.path !== "string" || !commit.path.startsWith("/"))
      problems.push(`commit not as documented: ${JSON.stringify(commit)}`);
  };
  const server = await listen(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    if (path === "/oauth2/token") return tokens.exchange(request, response);
    if (!tokens.authorized(request, response)) return void (await bodyOf(request));
    const body = await bodyOf(request);
    requests.push({ method: request.method ?? "", path, headers: request.headers, bytes: body.length });
    const arg = argOf(request);
    if (path.startsWith("/2/files/upload") && request.headers["content-type"] !== "application/octet-stream") problems.push(`${path} without octet-stream`);
    // Held: the whole body is here, the answer waits (a worker killed now never hears it, though the file is stored once released).
    if (path.startsWith("/2/files/upload") && control.holdUploads) await new Promise<void>((resolve) => held.push(resolve));
    const failure = path.startsWith("/2/files/upload") ? failNext.shift() : undefined;
    if (failure)
      return json(response, failure.status, { error_summary: "too_many_requests/" }, failure.retryAfter ? { "retry-after": failure.retryAfter } : {});
    const commitTo = (commit: Record<string, unknown>, bytes: Buffer) => {
      checkCommit(commit);
      const target = commit.path as string;
      if (files.has(target)) return json(response, 409, { error_summary: "path/conflict/file/..", error: { ".tag": "path" } });
      files.set(target, bytes);
      json(response, 200, { name: target.split("/").at(-1), path_display: target, size: bytes.length });
    };
    switch (path) {
      case "/2/files/upload":
        return commitTo(arg ?? {}, body);
      case "/2/files/upload_session/start": {
        const id = `session-${sessions.size + 1}`;
        sessions.set(id, [body]);
        return json(response, 200, { session_id: id });
      }
      case "/2/files/upload_session/append_v2":
      case "/2/files/upload_session/finish": {
        const cursor = (arg?.cursor ?? {}) as { session_id?: string; offset?: number };
        const parts = sessions.get(cursor.session_id ?? "");
        const held = parts?.reduce((sum, part) => sum + part.length, 0);
        if (!parts || held !== cursor.offset) return json(response, 409, { error_summary: "incorrect_offset/" });
        parts.push(body);
        if (path.endsWith("finish")) return commitTo((arg?.commit ?? {}) as Record<string, unknown>, Buffer.concat(parts));
        return json(response, 200, null);
      }
      case "/2/files/get_metadata":
      case "/2/files/delete_v2": {
        const target = (JSON.parse(body.toString()) as { path: string }).path;
        const file = files.get(target);
        if (!file) return json(response, 409, { error_summary: "path/not_found/" });
        if (path.endsWith("delete_v2")) files.delete(target);
        return json(response, 200, { ".tag": "file", path_display: target, size: file.length });
      }
      default:
        return json(response, 404, { error_summary: "unknown endpoint" });
    }
  });
  return { ...server, tokens: tokens.state, files, requests, problems, failNext, control, held };
}

/**
 * Google's token endpoint and the Drive v3 calls a delivery makes (files list by query, folder
 * create, resumable upload sessions with Content-Range, delete) on 127.0.0.1. `cutNextChunk` keeps
 * only the first half of the next chunk and answers 503, as a connection that broke off would.
 */
export async function startDriveReceiver(client = { id: "drive-client-id", secret: "drive-client-secret", refreshToken: "drive-refresh-token" }) {
  const tokens = tokenIssuer(client);
  const items = new Map<string, { id: string; name: string; parents: string[]; folder: boolean; bytes: Buffer }>();
  const uploads = new Map<string, { name: string; parents: string[]; size: number; received: Buffer[] }>();
  const requests: ReceivedRequest[] = [];
  const problems: string[] = [];
  const control = { cutNextChunk: false };
  let counter = 0;
  const nextId = () => `item${(counter += 1)}`;
  const server = await listen(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    if (url.pathname === "/token") return tokens.exchange(request, response);
    if (!tokens.authorized(request, response)) return void (await bodyOf(request));
    const method = request.method ?? "GET";
    if (url.pathname === "/drive/v3/files" && method === "GET") {
      requests.push({ method, path: url.pathname, headers: request.headers, bytes: 0 });
      const q = url.searchParams.get("q") ?? "";
      const match =
        /^name = '((?:[^'\\]|\\.)*)' and '([^']+)' in parents and trashed = false and mimeType (=|!=) 'application\/vnd\.google-apps\.folder'$/.exec(q);
      if (!match) return json(response, 400, { error: { message: `unreadable q: ${q}` } });
      const name = match[1]!.replace(/\\(.)/g, "$1");
      const found = [...items.values()].filter((item) => item.name === name && item.parents.includes(match[2]!) && item.folder === (match[3] === "="));
      return json(response, 200, { files: found.map((item) => ({ id: item.id, size: item.folder ? undefined : String(item.bytes.length) })) });
    }
    const body = await bodyOf(request);
    requests.push({ method, path: url.pathname, headers: request.headers, bytes: body.length });
    if (url.pathname === "/drive/v3/files" && method === "POST") {
      const meta = JSON.parse(body.toString()) as { name: string; mimeType?: string; parents: string[] };
      if (meta.mimeType !== "application/vnd.google-apps.folder") return json(response, 400, { error: { message: "only folders here" } });
      const id = nextId();
      items.set(id, { id, name: meta.name, parents: meta.parents, folder: true, bytes: Buffer.alloc(0) });
      return json(response, 200, { id });
    }
    if (url.pathname.startsWith("/drive/v3/files/") && method === "DELETE") {
      items.delete(decodeURIComponent(url.pathname.split("/").at(-1)!));
      response.writeHead(204).end();
      return;
    }
    if (url.pathname === "/upload/drive/v3/files" && method === "POST" && url.searchParams.get("uploadType") === "resumable") {
      const meta = JSON.parse(body.toString()) as { name: string; parents: string[] };
      const id = `upload${(counter += 1)}`;
      uploads.set(id, { name: meta.name, parents: meta.parents, size: Number(request.headers["x-upload-content-length"]), received: [] });
      response.writeHead(200, { location: `${server.url}/upload/drive/v3/files?uploadType=resumable&upload_id=${id}` }).end();
      return;
    }
    const upload = uploads.get(url.searchParams.get("upload_id") ?? "");
    if (url.pathname === "/upload/drive/v3/files" && method === "PUT" && upload) {
      const held = () => upload.received.reduce((sum, part) => sum + part.length, 0);
      const finish = () => {
        const id = nextId();
        items.set(id, { id, name: upload.name, parents: upload.parents, folder: false, bytes: Buffer.concat(upload.received) });
        return json(response, 200, { id, name: upload.name, size: String(held()) });
      };
      const partial = () => {
        response.writeHead(308, held() > 0 ? { range: `bytes=0-${held() - 1}` } : {}).end();
      };
      const range = request.headers["content-range"];
      if (!range) {
        upload.received = [body];
        return finish();
      }
      if (range === `bytes */${upload.size}`) return held() === upload.size ? json(response, 200, {}) : partial();
      const parts = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
      if (!parts || Number(parts[1]) !== held() || Number(parts[2]) - Number(parts[1]) + 1 !== body.length) {
        problems.push(`bad Content-Range ${range} with ${held()} held and ${body.length} sent`);
        return json(response, 400, { error: { message: "bad range" } });
      }
      if (control.cutNextChunk) {
        control.cutNextChunk = false;
        upload.received.push(body.subarray(0, Math.floor(body.length / 2)));
        return json(response, 503, { error: { message: "backend error" } });
      }
      upload.received.push(body);
      return held() === upload.size ? finish() : partial();
    }
    json(response, 404, { error: { message: `unknown ${method} ${url.pathname}` } });
  });
  return { ...server, tokens: tokens.state, items, requests, problems, control };
}

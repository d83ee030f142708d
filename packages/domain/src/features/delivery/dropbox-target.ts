import { Readable } from "node:stream";
import { call, chunksOf, DeliveryFailure, refreshedToken } from "./http";
import { PROBE_NAME, type DeliveryLimits, type DeliveryTarget } from "./target";

const SESSIONS_ABOVE = 150 * 1024 ** 2;

/**
 * A Dropbox folder, through its documented HTTP API: an access token from the refresh token, then
 * `/2/files/upload` up to 150 MiB, upload sessions (start, append_v2, finish) above, one chunk held at a time.
 */
export function dropboxTarget(options: {
  settings: { folder: string };
  secrets: Record<string, string>;
  urls: { api: string; content: string };
  limits: DeliveryLimits;
}): DeliveryTarget {
  const { settings, secrets, urls, limits } = options;
  const token = refreshedToken({
    service: "Dropbox",
    url: `${urls.api}/oauth2/token`,
    refreshToken: secrets.refreshToken ?? "",
    clientId: secrets.appKey ?? "",
    clientSecret: secrets.appSecret ?? "",
  });
  const pathOf = (parts: string[]) => `/${[settings.folder.replace(/^\/+|\/+$/g, ""), ...parts].filter(Boolean).join("/")}`;
  // Dropbox-API-Arg is an HTTP header: characters outside ASCII go as JSON escapes, as Dropbox documents.
  const header = (value: unknown) => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const content = async (endpoint: string, arg: unknown, body: Buffer | Readable, length: number, accept: number[] = []) =>
    call({
      service: "Dropbox",
      url: `${urls.content}${endpoint}`,
      init: {
        method: "POST",
        headers: {
          authorization: `Bearer ${await token()}`,
          "content-type": "application/octet-stream",
          "content-length": String(length),
          "dropbox-api-arg": header(arg),
        },
        body: body instanceof Readable ? (Readable.toWeb(body) as ReadableStream) : new Uint8Array(body),
        accept,
      },
    });
  const api = async (endpoint: string, body: unknown, accept: number[] = []) =>
    call({
      service: "Dropbox",
      url: `${urls.api}${endpoint}`,
      init: { method: "POST", headers: { authorization: `Bearer ${await token()}`, "content-type": "application/json" }, body: JSON.stringify(body), accept },
    });
  const commit = (path: string) => ({ path, mode: "add", autorename: false, mute: true });

  /** A 409 conflict after a crash: the file is there already, and counts as written when its size is the same. */
  async function alreadyThere(response: Response, path: string, size: number) {
    const text = await response.text();
    if (!text.includes("conflict")) throw new DeliveryFailure(`Dropbox answered 409: ${text.slice(0, 200)}`);
    const metadata = (await (await api("/2/files/get_metadata", { path })).json()) as { size?: number };
    if (metadata.size !== size) throw new DeliveryFailure(`Dropbox already holds a different file at ${path} (${metadata.size} bytes, not ${size})`);
  }

  return {
    async write(file) {
      const path = pathOf([...file.folders, file.filename]);
      if (file.size <= (limits.largeBytes ?? SESSIONS_ABOVE)) {
        const response = await content("/2/files/upload", commit(path), file.body, file.size, [409]);
        if (response.status === 409) await alreadyThere(response, path, file.size);
        return path;
      }
      let sessionId: string | undefined;
      let offset = 0;
      for await (const chunk of chunksOf({ source: file.body, size: limits.chunkBytes })) {
        const last = offset + chunk.length >= file.size;
        if (!sessionId) {
          const started = await content("/2/files/upload_session/start", { close: false }, chunk, chunk.length);
          sessionId = ((await started.json()) as { session_id: string }).session_id;
        } else if (!last) {
          await content("/2/files/upload_session/append_v2", { cursor: { session_id: sessionId, offset }, close: false }, chunk, chunk.length);
        } else {
          const finished = await content(
            "/2/files/upload_session/finish",
            { cursor: { session_id: sessionId, offset }, commit: commit(path) },
            chunk,
            chunk.length,
            [409],
          );
          if (finished.status === 409) await alreadyThere(finished, path, file.size);
        }
        offset += chunk.length;
      }
      if (offset !== file.size) throw new DeliveryFailure(`The stored file gave ${offset} bytes, not ${file.size}`);
      // A file whose only chunk was the first one: the session is finished empty.
      if (sessionId && offset === file.size && offset <= limits.chunkBytes) {
        const finished = await content(
          "/2/files/upload_session/finish",
          { cursor: { session_id: sessionId, offset }, commit: commit(path) },
          Buffer.alloc(0),
          0,
          [409],
        );
        if (finished.status === 409) await alreadyThere(finished, path, file.size);
      }
      return path;
    },
    async probe() {
      const path = pathOf([PROBE_NAME]);
      const body = Buffer.from("Meridian checks it may write here.");
      await content("/2/files/upload", { ...commit(path), mode: "overwrite" }, body, body.length);
      await api("/2/files/delete_v2", { path });
    },
  };
}

import { Readable } from "node:stream";
import { call, chunksOf, DeliveryFailure, refreshedToken, type CallInit } from "./http";
import { PROBE_NAME, type DeliveryLimits, type DeliveryTarget } from "./target";

const CHUNKS_ABOVE = 8 * 1024 ** 2;
const FOLDER = "application/vnd.google-apps.folder";
/** Drive takes chunks in multiples of 256 KiB (all but the last). */
const CHUNK_UNIT = 256 * 1024;
/** A chunk that breaks off is asked about and its rest sent again, this many times. */
const CHUNK_TRIES = 3;

const quoted = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/**
 * A Google Drive folder, through the Drive v3 API: an access token from the refresh token, the
 * project's and observation's folders found or made, then a resumable upload (one PUT up to 8 MiB,
 * chunks of 8 MiB with Content-Range above; a chunk that breaks off resumes where Drive says it stopped).
 */
export function driveTarget(options: {
  settings: { folderId: string };
  secrets: Record<string, string>;
  urls: { oauth: string; drive: string };
  limits: DeliveryLimits;
}): DeliveryTarget {
  const { settings, secrets, urls, limits } = options;
  const token = refreshedToken({
    service: "Google Drive",
    url: `${urls.oauth}/token`,
    refreshToken: secrets.refreshToken ?? "",
    clientId: secrets.clientId ?? "",
    clientSecret: secrets.clientSecret ?? "",
  });
  const authorized = async (headers: Record<string, string> = {}) => ({ authorization: `Bearer ${await token()}`, ...headers });
  const json = async <T>(response: Response) => (await response.json()) as T;
  const driveCall = (url: string, init: CallInit) => call({ service: "Google Drive", url, init });

  async function find(name: string, parent: string, folder: boolean) {
    const q = `name = ${quoted(name)} and ${quoted(parent)} in parents and trashed = false and mimeType ${folder ? "=" : "!="} '${FOLDER}'`;
    const url = `${urls.drive}/drive/v3/files?${new URLSearchParams({ q, fields: "files(id,size)", spaces: "drive" })}`;
    return (await json<{ files?: Array<{ id: string; size?: string }> }>(await driveCall(url, { headers: await authorized() }))).files?.[0];
  }
  async function folderIn(parent: string, name: string) {
    const found = await find(name, parent, true);
    if (found) return found.id;
    const created = await driveCall(`${urls.drive}/drive/v3/files?fields=id`, {
      method: "POST",
      headers: await authorized({ "content-type": "application/json" }),
      body: JSON.stringify({ name, mimeType: FOLDER, parents: [parent] }),
    });
    return (await json<{ id: string }>(created)).id;
  }
  async function begin(name: string, parent: string, size: number, contentType: string) {
    const response = await driveCall(`${urls.drive}/upload/drive/v3/files?uploadType=resumable`, {
      method: "POST",
      headers: await authorized({
        "content-type": "application/json; charset=UTF-8",
        "x-upload-content-type": contentType,
        "x-upload-content-length": String(size),
      }),
      body: JSON.stringify({ name, parents: [parent] }),
    });
    const location = response.headers.get("location");
    if (!location) throw new DeliveryFailure("Google Drive gave no upload address");
    return location;
  }
  /** How many bytes Drive holds of the upload (`Range: bytes=0-N`), or the whole when it says it is done. */
  async function received(location: string, size: number) {
    const response = await driveCall(location, {
      method: "PUT",
      headers: await authorized({ "content-range": `bytes */${size}`, "content-length": "0" }),
      accept: [308],
    });
    if (response.status !== 308) return size;
    const range = /bytes=0-(\d+)/.exec(response.headers.get("range") ?? "");
    return range ? Number(range[1]) + 1 : 0;
  }
  async function sendChunk(location: string, chunk: Buffer, offset: number, size: number) {
    let sent = 0;
    for (let attempt = 1; ; attempt += 1) {
      const piece = chunk.subarray(sent);
      const start = offset + sent;
      try {
        await driveCall(location, {
          method: "PUT",
          headers: await authorized({ "content-length": String(piece.length), "content-range": `bytes ${start}-${start + piece.length - 1}/${size}` }),
          body: new Uint8Array(piece),
          accept: [308],
        });
        return;
      } catch (error) {
        if (attempt >= CHUNK_TRIES) throw error;
        // Drive says how much of the upload it kept; the rest of this chunk goes again.
        sent = Math.max(0, (await received(location, size)) - offset);
        if (sent >= chunk.length) return;
      }
    }
  }
  async function remove(id: string) {
    await driveCall(`${urls.drive}/drive/v3/files/${encodeURIComponent(id)}`, { method: "DELETE", headers: await authorized() });
  }

  return {
    async write(file) {
      let parent = settings.folderId;
      for (const folder of file.folders) parent = await folderIn(parent, folder);
      const shown = [...file.folders, file.filename].join("/");
      const existing = await find(file.filename, parent, false);
      if (existing && Number(existing.size) === file.size) {
        file.body.destroy();
        return shown;
      }
      if (existing) await remove(existing.id);
      const location = await begin(file.filename, parent, file.size, file.contentType);
      if (file.size <= (limits.largeBytes ?? CHUNKS_ABOVE)) {
        await driveCall(location, {
          method: "PUT",
          headers: await authorized({ "content-length": String(file.size), "content-type": file.contentType }),
          body: Readable.toWeb(file.body) as ReadableStream,
        });
        return shown;
      }
      const chunkBytes = Math.max(CHUNK_UNIT, Math.floor(limits.chunkBytes / CHUNK_UNIT) * CHUNK_UNIT);
      let offset = 0;
      for await (const chunk of chunksOf({ source: file.body, size: chunkBytes })) {
        await sendChunk(location, chunk, offset, file.size);
        offset += chunk.length;
      }
      if (offset !== file.size) throw new DeliveryFailure(`The stored file gave ${offset} bytes, not ${file.size}`);
      return shown;
    },
    async probe() {
      const body = Buffer.from("Meridian checks it may write here.");
      const location = await begin(PROBE_NAME, settings.folderId, body.length, "text/plain");
      const created = await driveCall(location, {
        method: "PUT",
        headers: await authorized({ "content-length": String(body.length), "content-type": "text/plain" }),
        body: new Uint8Array(body),
      });
      await remove((await json<{ id: string }>(created)).id);
    },
  };
}

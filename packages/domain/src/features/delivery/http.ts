import type { Readable } from "node:stream";

/**
 * Why a delivery attempt failed, in words fit for the file's record and its owner: never a token,
 * a secret or a signed address. `retryAfterMs` is the remote's own wish (429 `Retry-After`).
 */
export class DeliveryFailure extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export type CallInit = RequestInit & { accept?: number[] };

/** A request to a provider's API; any answer but 2xx (or one of `accept`) becomes a DeliveryFailure naming the service and status. */
export async function call(options: { service: string; url: string; init?: CallInit }): Promise<Response> {
  const { service, url, init = {} } = options;
  let response: Response;
  try {
    // A streamed body needs `duplex: "half"` in Node's fetch; it does no harm to the others.
    response = await fetch(url, { ...init, ...(init.body ? { duplex: "half" } : {}) } as RequestInit);
  } catch (error) {
    throw new DeliveryFailure(
      `${service} could not be reached: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`,
    );
  }
  if (response.ok || init.accept?.includes(response.status)) return response;
  const detail = (await response.text().catch(() => "")).slice(0, 300).replace(/\s+/g, " ").trim();
  if (response.status === 429) throw new DeliveryFailure(`${service} asked to slow down (429)`, retryAfterMs(response.headers.get("retry-after")));
  throw new DeliveryFailure(`${service} answered ${response.status}${detail ? `: ${detail}` : ""}`);
}

/** A readable as pieces of exactly `size` bytes (the last one shorter): at most one piece is held at a time. */
export async function* chunksOf(options: { source: Readable; size: number }): AsyncGenerator<Buffer> {
  const { source, size } = options;
  let pending: Buffer[] = [];
  let held = 0;
  for await (const data of source) {
    let chunk = data as Buffer;
    while (held + chunk.length >= size) {
      const take = size - held;
      pending.push(chunk.subarray(0, take));
      yield Buffer.concat(pending);
      chunk = chunk.subarray(take);
      pending = [];
      held = 0;
    }
    if (chunk.length > 0) {
      pending.push(chunk);
      held += chunk.length;
    }
  }
  if (held > 0) yield Buffer.concat(pending);
}

/** An OAuth access token from a refresh token (form POST), fetched again when less than a minute of it is left. */
export function refreshedToken(options: { service: string; url: string; refreshToken: string; clientId: string; clientSecret: string }) {
  let token: { value: string; expiresAt: number } | undefined;
  return async () => {
    if (token && token.expiresAt - Date.now() > 60_000) return token.value;
    const response = await call({
      service: `${options.service} (token)`,
      url: options.url,
      init: {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: options.refreshToken,
          client_id: options.clientId,
          client_secret: options.clientSecret,
        }).toString(),
      },
    });
    const body = (await response.json()) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new DeliveryFailure(`${options.service} gave no access token`);
    token = { value: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000 };
    return token.value;
  };
}

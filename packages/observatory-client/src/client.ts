import { EventEmitter } from "node:events";
import type { Readable } from "node:stream";
import type { ObservationStatus } from "@meridian/rules";
import {
  serverToPluginMessageSchema,
  type EquipmentReport,
  type PluginMessageBody,
  type ServerReply,
  type ServerToPluginMessage,
} from "@meridian/rules/observatory-protocol";
import WebSocket from "ws";

export interface ObservatoryClientOptions {
  /** The server's base URL, e.g. https://meridian.example.org. */
  url: string;
  /** The observatory's key (`mok_...`), from the observatory's Keys tab. */
  key: string;
  /** The plugin's version, compared with the server's minimum (`update_required`). */
  pluginVersion: string;
  /** Seconds between heartbeats (default 30; the server marks an observatory offline after missing them). */
  heartbeatSeconds?: number;
  /**
   * Sent with `hello`; each at most 64 KiB as JSON. `equipment.filters` names the filter wheel's
   * filters ("L", "Ha"…): the server then sends only observations whose exposures ask for those.
   */
  systemInfo?: Record<string, unknown>;
  equipment?: EquipmentReport;
  /**
   * Connect again when the connection ends without this side closing it (a server stopping, a
   * missed heartbeat, a cut link): after 1 s, doubling up to 30 s, each wait drawn between half
   * and all of it so that many observatories do not return at once. Never after 4409 (a newer
   * connection with the key replaced this one) or 4401 (the key was revoked). Default true.
   */
  reconnect?: boolean;
  /** Seconds to wait for the answer to `hello` (default 30): past them (a server stuck, a link gone quiet) the socket is dropped. */
  helloTimeoutSeconds?: number;
  /**
   * Seconds to wait for the answer to any other message (default 60). The server answers every
   * message in turn, so past them the link or the server is stuck: the message is rejected, the
   * socket dropped and, with `reconnect`, a new one opened, where the message can be sent again.
   */
  answerTimeoutSeconds?: number;
  log?: (line: string) => void;
}

/** The server's answer to a message it handled. */
export type Acknowledgement = Extract<ServerReply, { type: "ack" }>;

/** A file the server recorded: its id (a preview names it in `previewOf`) and what the server says of it. */
export type UploadedFile = { id: string } & Record<string, unknown>;

/** The server's close codes after which a plugin must not connect again on its own. */
const REVOKED = 4401;
const REPLACED = 4409;
const FINAL_CLOSE_CODES = new Set([REVOKED, REPLACED]);
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * The pause before trying again when the server said when (`retryAfter`, seconds): that, plus up to
 * a second, so that the plugins it refused together do not all come back in the same instant.
 */
export function askedPauseMs(retryAfter: number): number {
  return retryAfter * 1000 + Math.round(Math.random() * 1000);
}

/** The server's codes for a refusal for now: nothing of the message was kept, and the same message succeeds later. */
const REFUSED_FOR_NOW_CODES = new Set(["SERVICE_UNAVAILABLE", "MAINTENANCE", "RATE_LIMITED", "INSUFFICIENT_STORAGE"]);
/** The same refusals over HTTP (an upload's): 503, 429 and 507. */
const REFUSED_FOR_NOW_STATUSES = new Set([503, 429, 507]);

/**
 * Whether a rejection (of `send`, `reportStatus` and the like, or of `uploadFile`) refuses for now
 * rather than for good: the server's database or storage busy (SERVICE_UNAVAILABLE, 503), a
 * restore's maintenance (MAINTENANCE, 503), a rate limit (RATE_LIMITED, 429), or its disk full
 * (INSUFFICIENT_STORAGE, 507: space gets freed, and the server takes writes again without a
 * restart). Nothing of it was kept: send it again after `retryAfter` seconds when the error
 * carries them (`askedPauseMs`), else after `backoffMs`. Any other refusal is final.
 */
export function refusedForNow(error: unknown): boolean {
  const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown };
  return (typeof code === "string" && REFUSED_FOR_NOW_CODES.has(code)) || (typeof status === "number" && REFUSED_FOR_NOW_STATUSES.has(status));
}

/**
 * The pause before try number `attempt` (1, 2, …) of something lost or refused for now: 1 s
 * doubling up to 30 s, each drawn between half and all of it, so that a network's observatories
 * refused together (a server restarting, its database busy) do not all come back at once.
 */
export function backoffMs(attempt: number): number {
  const ceiling = Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, attempt - 1), RETRY_MAX_MS);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/**
 * A Meridian observatory plugin's connection, as `/api/docs/observatory` and `/api/asyncapi.json`
 * describe it: connects with the key, says hello, keeps heartbeats going, matches each message to
 * its `ack` or `error`, reads what the server sends through the protocol's schemas, reconnects on
 * its own, and uploads files. What the plugin does with an assignment is its own business: listen
 * for `assign` and report with `reportStatus`.
 *
 * Events: `message` (every server message, parsed), `assign` (the observation), `cancel`
 * (observationId), `update_required` and `motd` (the message), `unreadable` (text, reason:
 * a message the schema refuses, otherwise ignored), `close` (code, reason), `replaced` (closed by a
 * newer connection with the key; it never reconnects then) and `reconnected`.
 */
export class ObservatoryClient extends EventEmitter {
  protected readonly connection: Required<Omit<ObservatoryClientOptions, "log" | "systemInfo" | "equipment">> &
    Pick<ObservatoryClientOptions, "log" | "systemInfo" | "equipment">;
  protected ws: WebSocket | undefined;
  protected heartbeat: NodeJS.Timeout | undefined;
  private nextId = 1;
  private pending = new Map<string, { resolve: (reply: Acknowledgement) => void; reject: (error: Error) => void }>();
  /** Set when this side closed, or the server said not to come back: no reconnecting. */
  private stopped = false;
  private reconnectAttempts = 0;
  private retry: NodeJS.Timeout | undefined;
  private helloed = false;

  constructor(options: ObservatoryClientOptions) {
    super();
    this.connection = { heartbeatSeconds: 30, reconnect: true, helloTimeoutSeconds: 30, answerTimeoutSeconds: 60, ...options };
  }

  /** Whether it is connected and its hello was acknowledged: messages may be sent. */
  get connected(): boolean {
    return this.helloed && this.ws?.readyState === WebSocket.OPEN;
  }

  /** Whether it will connect again on its own (a retry is scheduled). */
  get reconnecting(): boolean {
    return this.retry !== undefined && !this.stopped;
  }

  /**
   * Opens the connection and says hello; resolves with the hello's acknowledgement. When the
   * upgrade or the hello is refused, or the hello goes unanswered, it rejects (with the server's
   * `code` and `retryAfter` when it gave them) and drops the socket, on which nothing else could be
   * sent: a caller's `connect()` is the caller's to try again; a reconnect tries again on its own.
   */
  async connect(): Promise<Acknowledgement> {
    const wsUrl = `${this.connection.url.replace(/^http/, "ws")}/ws/observatory`;
    const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${this.connection.key}` } });
    this.ws = ws;
    try {
      return await this.open(ws);
    } catch (error) {
      if (this.ws === ws) {
        this.ws = undefined;
        ws.terminate();
      }
      throw error;
    }
  }

  private async open(ws: WebSocket): Promise<Acknowledgement> {
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("unexpected-response", (_request, response) => {
        // A refusal for now (429, 503) says when to come back; the reconnect waits at least that.
        const retryAfter = Number(response.headers["retry-after"]);
        const error = new Error(`connection refused: ${response.statusCode}`);
        reject(Object.assign(error, { status: response.statusCode, ...(Number.isInteger(retryAfter) && retryAfter > 0 ? { retryAfter } : {}) }));
      });
      ws.once("error", reject);
    });
    ws.on("message", (raw) => this.onMessage(raw.toString()));
    ws.on("close", (code, reason) => {
      // A socket dropped after a failed hello, or replaced by a newer one of this client: not this client's connection.
      if (this.ws !== ws) return;
      this.helloed = false;
      clearInterval(this.heartbeat);
      for (const waiter of this.pending.values()) waiter.reject(new Error(`connection closed (${code} ${reason.toString()})`));
      this.pending.clear();
      if (FINAL_CLOSE_CODES.has(code)) this.stopped = true;
      this.emit("close", code, reason.toString());
      if (code === REPLACED) this.emit("replaced");
      if (this.connection.reconnect) this.scheduleReconnect();
    });
    const { pluginVersion, systemInfo, equipment } = this.connection;
    const reply = await this.send({ type: "hello", pluginVersion, systemInfo, equipment }, this.connection.helloTimeoutSeconds * 1000);
    this.helloed = true;
    this.heartbeat = setInterval(() => void this.send({ type: "heartbeat" }).catch(() => undefined), this.connection.heartbeatSeconds * 1000);
    this.reconnectAttempts = 0;
    return reply;
  }

  /** One retry at a time, after the backoff or the pause the server asked for (`askedPauseMs`), whichever is longer. */
  private scheduleReconnect(retryAfter?: number) {
    if (this.retry !== undefined || this.stopped) return;
    this.reconnectAttempts += 1;
    const delay = Math.max(backoffMs(this.reconnectAttempts), retryAfter ? askedPauseMs(retryAfter) : 0);
    this.log(`connection lost; connecting again in ${(delay / 1000).toFixed(1)} s`);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.stopped) return;
      this.connect()
        .then(() => this.emit("reconnected"))
        .catch((error: Error & { status?: number; retryAfter?: number }) => {
          this.log(`could not connect: ${error.message}`);
          if (error.status === 401) this.stopped = true;
          // A refused hello too: its socket was dropped without a close of its own. A socket the
          // server closed has scheduled this already.
          this.scheduleReconnect(error.retryAfter);
        });
    }, delay);
  }

  /**
   * Sends a message and resolves with its `ack`, or rejects with the server's `error`: its `code`
   * on the error, and `retryAfter` (seconds) when the server said when to send it again. It also
   * rejects when no answer came within `timeoutMs`; without one, within `answerTimeoutSeconds`,
   * and then the socket, stuck, is dropped too.
   */
  send(message: PluginMessageBody, timeoutMs?: number): Promise<Acknowledgement> {
    const id = String(this.nextId++);
    return new Promise((resolve, reject) => {
      const ws = this.ws;
      if (!ws || ws.readyState !== WebSocket.OPEN) return reject(new Error("not connected"));
      const waitMs = timeoutMs ?? this.connection.answerTimeoutSeconds * 1000;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${message.type} within ${waitMs / 1000} s`));
        if (timeoutMs === undefined && this.ws === ws) {
          this.log(`no answer to ${message.type} within ${waitMs / 1000} s; dropping the connection`);
          ws.terminate();
        }
      }, waitMs);
      const settled =
        <T>(settle: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          settle(value);
        };
      this.pending.set(id, { resolve: settled(resolve), reject: settled(reject) });
      ws.send(JSON.stringify({ ...message, id }));
    });
  }

  /** Reports an observation's move (in_progress, acquisition_complete, completed, failed, aborted). */
  reportStatus(observationId: string, status: ObservationStatus, reason?: string) {
    return this.send({ type: "observation_status", observationId, status, ...(reason ? { reason } : {}) });
  }

  safety(safe: boolean, reason?: string) {
    return this.send({ type: "safety", safe, ...(reason ? { reason } : {}) });
  }

  weather(hold: boolean, reason?: string) {
    return this.send({ type: "weather", hold, ...(reason ? { reason } : {}) });
  }

  /**
   * Reports changed system information or equipment (a report replaces the last one, so give the
   * whole equipment, `filters` included). Once acknowledged it is what a reconnect's `hello` sends.
   */
  async config(report: { systemInfo?: Record<string, unknown>; equipment?: EquipmentReport }) {
    const reply = await this.send({ type: "config", ...report });
    if (report.systemInfo !== undefined) this.connection.systemInfo = report.systemInfo;
    if (report.equipment !== undefined) this.connection.equipment = report.equipment;
    return reply;
  }

  /** Says goodbye (the observatory shows offline at once) and closes. */
  async goodbye() {
    await this.send({ type: "goodbye" });
    await this.close();
  }

  /**
   * Uploads a captured file of an assigned observation, streamed (a Readable for large files),
   * with `previewOf` naming the file a PNG preview belongs to. Resolves with the recorded file; a
   * refusal rejects with the HTTP `status` on the error, and `retryAfter` (seconds) when the
   * server sent a numeric Retry-After. A refusal for now (`refusedForNow`: 503, 429, 507 for a
   * full disk) kept nothing of the file: upload it again after the pause.
   */
  async uploadFile(upload: { observationId: string; filename: string; contentType: string; body: Uint8Array | Readable; previewOf?: string }) {
    const { observationId, filename, contentType, body, previewOf } = upload;
    const query = new URLSearchParams({ filename, ...(previewOf ? { previewOf } : {}) });
    const response = await fetch(`${this.connection.url}/observations/${encodeURIComponent(observationId)}/files?${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.connection.key}`, "content-type": contentType },
      body: body instanceof Uint8Array ? body : (body as unknown as ReadableStream),
      // Node's fetch needs this to send a stream as the body.
      ...(body instanceof Uint8Array ? {} : { duplex: "half" }),
    } as RequestInit);
    if (response.status !== 201) {
      const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
      throw Object.assign(new Error(`upload of ${filename} answered ${response.status}: ${await response.text()}`), {
        status: response.status,
        retryAfter: Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      });
    }
    return (await response.json()) as UploadedFile;
  }

  /** Closes for good: no reconnecting. */
  async close() {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      ws.once("close", () => resolve());
      ws.close();
    });
  }

  private onMessage(text: string) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.emit("unreadable", text, "not JSON");
      return;
    }
    const parsed = serverToPluginMessageSchema.safeParse(json);
    if (!parsed.success) {
      const reason = parsed.error.issues.map((issue) => `${issue.path.join(".") || "message"}: ${issue.message}`).join("; ");
      this.log(`unreadable message from the server (${reason}): ${text.slice(0, 300)}`);
      this.emit("unreadable", text, reason);
      return;
    }
    this.handle(parsed.data);
  }

  private handle(message: ServerToPluginMessage) {
    this.emit("message", message);
    if (message.type === "ack" || message.type === "error") {
      const waiter = this.pending.get(String(message.id));
      if (!waiter) return;
      this.pending.delete(String(message.id));
      if (message.type === "ack") waiter.resolve(message);
      else waiter.reject(Object.assign(new Error(message.message), { code: message.code, retryAfter: message.retryAfter }));
      return;
    }
    if (message.type === "assign") this.emit("assign", message.observation);
    else if (message.type === "cancel") this.emit("cancel", message.observationId);
    else this.emit(message.type, message);
  }

  protected log(line: string) {
    this.connection.log?.(line);
  }
}

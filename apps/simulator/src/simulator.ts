import { EventEmitter } from "node:events";
import type { ObservationStatus } from "@meridian/rules";
import {
  serverToPluginMessageSchema,
  type AssignedObservation,
  type PluginMessageBody,
  type ServerReply,
  type ServerToPluginMessage,
} from "@meridian/rules/observatory-protocol";
import WebSocket from "ws";

/** What the simulated plugin does with the next assignment. */
export type Outcome = "complete" | "fail" | "abort";

export interface SimulatorOptions {
  /** The server's base URL, e.g. http://127.0.0.1:3000. */
  url: string;
  /** An observatory key (`mok_...`). */
  key: string;
  pluginVersion?: string;
  /** Time runs this many times faster than a real night's exposures (default 1; the demo uses 60). */
  speed?: number;
  heartbeatSeconds?: number;
  systemInfo?: Record<string, unknown>;
  equipment?: Record<string, unknown>;
  /** Bytes of the simulated image uploaded per exposure set (default 64 KiB). */
  imageBytes?: number;
  /**
   * Connect again (after 1 s, doubling up to 30 s) when the connection ends without this side
   * closing it: a server stopping (1001), a missed heartbeat (4408), a cut link. Never after
   * 4409 (a newer connection with the key replaced this one) or 4401 (the key was revoked).
   * Off by default.
   */
  reconnect?: boolean;
  /**
   * How it waits out a night's exposures (default: a timer of the exposure time divided by
   * `speed`). A test that moves the server's clock passes one that waits for that clock.
   */
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
}

/**
 * An observatory plugin as docs/api-contract.md's Observatory connection describes it: connects with its
 * key, says hello, sends heartbeats, takes `assign`, walks the observation through in_progress →
 * acquisition_complete → completed while uploading a file and its preview, and obeys `cancel`.
 * It can be told to fail or abort the next observation, go unsafe, hold for weather, say
 * goodbye or drop off without a word. It reads and writes the protocol's shared schemas
 * (`@meridian/rules/observatory-protocol`). Events: `message` (every server message, parsed),
 * `unreadable` (a server message the schema refuses, with the reason; it is otherwise ignored),
 * `status` (each status it reported), `file`, `close` (code, reason), `replaced` (closed with
 * 4409: a newer connection with the key took over; it never reconnects then) and `reconnected`.
 */
export class ObservatorySimulator extends EventEmitter {
  readonly options: Required<Omit<SimulatorOptions, "log" | "systemInfo" | "equipment" | "sleep">> &
    Pick<SimulatorOptions, "log" | "systemInfo" | "equipment" | "sleep">;
  private ws: WebSocket | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private nextId = 1;
  private pending = new Map<string, { resolve: (reply: Acknowledgement) => void; reject: (error: Error) => void }>();
  private current: { id: string; cancelled: boolean } | undefined;
  private nextOutcome: Outcome = "complete";
  /** Set when this side closed, or the server said not to come back: no reconnecting. */
  private stopped = false;
  private retryDelayMs = RETRY_FIRST_MS;
  private retry: NodeJS.Timeout | undefined;
  readonly received: ServerToPluginMessage[] = [];

  constructor(options: SimulatorOptions) {
    super();
    this.options = { pluginVersion: "3.8.0.0", speed: 1, heartbeatSeconds: 30, imageBytes: 64 * 1024, reconnect: false, ...options };
  }

  /** Whether it will connect again on its own (a retry is scheduled). */
  get reconnecting(): boolean {
    return this.retry !== undefined && !this.stopped;
  }

  get observationInHand(): string | undefined {
    return this.current?.id;
  }

  /** Opens the connection and says hello; resolves with the hello's acknowledgement. */
  async connect(): Promise<Acknowledgement> {
    const wsUrl = `${this.options.url.replace(/^http/, "ws")}/ws/observatory`;
    const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${this.options.key}` } });
    this.ws = ws;
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("unexpected-response", (_request, response) => reject(new Error(`connection refused: ${response.statusCode}`)));
      ws.once("error", reject);
    });
    ws.on("message", (raw) => this.onMessage(raw.toString()));
    ws.on("close", (code, reason) => {
      clearInterval(this.heartbeat);
      for (const waiter of this.pending.values()) waiter.reject(new Error(`connection closed (${code} ${reason.toString()})`));
      this.pending.clear();
      if (FINAL_CLOSE_CODES.has(code)) this.stopped = true;
      this.emit("close", code, reason.toString());
      if (code === REPLACED) this.emit("replaced");
      if (this.options.reconnect && !this.stopped) this.scheduleReconnect();
    });
    const reply = await this.send({
      type: "hello",
      pluginVersion: this.options.pluginVersion,
      systemInfo: this.options.systemInfo,
      equipment: this.options.equipment,
    });
    this.heartbeat = setInterval(() => void this.send({ type: "heartbeat" }).catch(() => undefined), this.options.heartbeatSeconds * 1000);
    this.retryDelayMs = RETRY_FIRST_MS;
    return reply;
  }

  private scheduleReconnect() {
    const delay = this.retryDelayMs;
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
    this.log(`connection lost; connecting again in ${delay / 1000} s`);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.stopped) return;
      this.connect()
        .then(() => this.emit("reconnected"))
        .catch((error: Error) => {
          this.log(`could not connect: ${error.message}`);
          if (error.message.endsWith(": 401")) this.stopped = true;
          // A refused upgrade ends without a close event; a socket that opened and closed has scheduled its own retry.
          if (!this.stopped && this.ws?.readyState !== WebSocket.OPEN && this.ws?.readyState !== WebSocket.CLOSING) this.scheduleReconnect();
        });
    }, delay);
  }

  /** Sends a message and resolves with its `ack`, or rejects with the server's `error`. */
  send(message: PluginMessageBody): Promise<Acknowledgement> {
    const id = String(this.nextId++);
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return reject(new Error("not connected"));
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ ...message, id }));
    });
  }

  /** The next assignment fails or aborts instead of completing. */
  willEndWith(outcome: Outcome) {
    this.nextOutcome = outcome;
  }

  safety(safe: boolean, reason?: string) {
    return this.send({ type: "safety", safe, ...(reason ? { reason } : {}) });
  }

  weather(hold: boolean, reason?: string) {
    return this.send({ type: "weather", hold, ...(reason ? { reason } : {}) });
  }

  config(report: { systemInfo?: Record<string, unknown>; equipment?: Record<string, unknown> }) {
    return this.send({ type: "config", ...report });
  }

  /** Says goodbye and closes. */
  async goodbye() {
    await this.send({ type: "goodbye" });
    await this.close();
  }

  /** Stops heartbeats and answers nothing more, but keeps the socket open: the server must notice the silence. */
  fallSilent() {
    clearInterval(this.heartbeat);
    this.ws?.removeAllListeners("message");
  }

  /** Stops reading from the network, as a plugin behind a stalled link: what the server sends (its close included) waits unread. */
  stallNetwork() {
    this.socket()?.pause();
  }

  /** Reads again what a stalled link held back. */
  resumeNetwork() {
    this.socket()?.resume();
  }

  private socket() {
    // ws keeps its TCP socket private; pausing it is the only way to stop reading without closing.
    return (this.ws as unknown as { _socket?: { pause(): void; resume(): void } } | undefined)?._socket;
  }

  /** Drops off without a word (the TCP connection is cut). */
  dropOff() {
    clearInterval(this.heartbeat);
    this.ws?.terminate();
  }

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
    const parsed = serverToPluginMessageSchema.safeParse(JSON.parse(text));
    if (!parsed.success) {
      const reason = parsed.error.issues.map((issue) => `${issue.path.join(".") || "message"}: ${issue.message}`).join("; ");
      this.log(`unreadable message from the server (${reason}): ${text.slice(0, 300)}`);
      this.emit("unreadable", text, reason);
      return;
    }
    const message = parsed.data;
    this.received.push(message);
    this.emit("message", message);
    if (message.type === "ack" || message.type === "error") {
      const waiter = this.pending.get(String(message.id));
      if (!waiter) return;
      this.pending.delete(String(message.id));
      if (message.type === "ack") waiter.resolve(message);
      else waiter.reject(Object.assign(new Error(message.message), { code: message.code }));
      return;
    }
    if (message.type === "assign") void this.run(message.observation).catch((error) => this.log(`observation failed: ${error}`));
    const current = this.current;
    if (message.type === "cancel" && current && current.id === message.observationId) current.cancelled = true;
  }

  private log(line: string) {
    this.options.log?.(line);
  }

  private async report(observationId: string, status: ObservationStatus, reason?: string) {
    await this.send({ type: "observation_status", observationId, status, ...(reason ? { reason } : {}) });
    this.emit("status", { observationId, status });
    this.log(`${observationId}: ${status}`);
  }

  /** A night's exposures, compressed by `speed`: in_progress, the exposures, acquisition_complete, the files, completed. */
  private async run(observation: AssignedObservation) {
    const current = { id: observation.id, cancelled: false };
    this.current = current;
    const outcome = this.nextOutcome;
    this.nextOutcome = "complete";
    try {
      await this.report(observation.id, "in_progress");
      const exposureSeconds = observation.targets
        .flatMap((target) => target.exposures)
        .reduce((sum, exposure) => sum + exposure.exposureSeconds * exposure.count, 0);
      await this.wait(Math.min(exposureSeconds, 600) * 1000);
      if (current.cancelled) return;
      if (outcome === "fail") return await this.report(observation.id, "failed", "simulated camera fault");
      if (outcome === "abort") return await this.report(observation.id, "aborted", "simulated abort by the operator");
      await this.report(observation.id, "acquisition_complete");
      const image = await this.upload(observation.id, `${observation.targets[0]?.name ?? "target"}.fits`, "application/fits", this.image());
      await this.upload(observation.id, "preview.png", "image/png", PREVIEW_PNG, image.id as string);
      if (current.cancelled) return;
      await this.report(observation.id, "completed");
    } catch (error) {
      // A cancel that crossed our report is expected; anything else is worth a line.
      if (!current.cancelled) this.log(`${observation.id}: ${(error as Error).message}`);
    } finally {
      if (this.current === current) this.current = undefined;
    }
  }

  private wait(ms: number) {
    if (this.options.sleep) return this.options.sleep(ms);
    return new Promise((resolve) => setTimeout(resolve, ms / this.options.speed));
  }

  private image(): Buffer {
    const bytes = Buffer.alloc(this.options.imageBytes);
    Buffer.from("SIMPLE  =                    T / simulated by Meridian's observatory simulator").copy(bytes);
    return bytes;
  }

  private async upload(observationId: string, filename: string, contentType: string, body: Buffer, previewOf?: string) {
    const query = new URLSearchParams({ filename, ...(previewOf ? { previewOf } : {}) });
    const response = await fetch(`${this.options.url}/observations/${observationId}/files?${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.options.key}`, "content-type": contentType },
      body: new Uint8Array(body),
    });
    if (response.status !== 201) throw new Error(`upload of ${filename} answered ${response.status}: ${await response.text()}`);
    const file = (await response.json()) as Record<string, unknown>;
    this.emit("file", file);
    return file;
  }
}

/** The server's answer to a message it handled. */
export type Acknowledgement = Extract<ServerReply, { type: "ack" }>;

/** The server's close codes after which a plugin must not connect again on its own. */
const REPLACED = 4409;
const FINAL_CLOSE_CODES = new Set([4401, REPLACED]);
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** A 1×1 PNG, the smallest honest preview. */
const PREVIEW_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

import {
  askedPauseMs,
  backoffMs,
  ObservatoryClient,
  refusedForNow,
  type AssignedObservation,
  type EquipmentReport,
  type ServerToPluginMessage,
  type UploadedFile,
} from "@meridian/observatory-client";
import type { ObservationStatus } from "@meridian/rules";
import { opticsOf, SkyCamera, skyEquipment, type FrameFacts, type SkySettings } from "./sky/camera";

/** The filter wheel of a typical amateur imaging observatory: what `pnpm simulate:observatory` and the demo report unless told otherwise. */
export const SIMULATED_FILTERS = ["L", "R", "G", "B", "Ha", "OIII", "SII"];

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
  /** Its equipment report; `filters` (e.g. `SIMULATED_FILTERS`) restricts what it is sent to observations asking for those. */
  equipment?: EquipmentReport;
  /** Bytes of the placeholder image uploaded per observation when it draws no sky (default 64 KiB). */
  imageBytes?: number;
  /**
   * Frames of real sky: one FITS frame a planned exposure, drawn from the star catalog as the
   * equipment's optics see it (`sky/camera.ts`), and no preview (the server makes those). Without
   * it, or when the catalog cannot be drawn from (said once in the log), each observation uploads
   * a placeholder image and a 1×1 preview. With it, the equipment reported carries the optics.
   */
  sky?: SkySettings;
  /** Connect again on its own when the connection ends without this side closing it (see the client). Off by default. */
  reconnect?: boolean;
  /**
   * How it waits out a night's exposures (default: a timer of the exposure time divided by
   * `speed`). A test that moves the server's clock passes one that waits for that clock.
   */
  sleep?: (ms: number) => Promise<void>;
  /**
   * How it waits out the pause before sending again what the server refused for now (default: a
   * timer of the pause, the server's Retry-After when it gave one). A test passes one that ends
   * once what refused it has gone (maintenance ended, space freed) instead of waiting the minute.
   */
  pause?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
}

/**
 * A simulated observatory on `@meridian/observatory-client`, the same client a Node plugin would
 * use: it takes `assign`, walks the observation through in_progress → acquisition_complete →
 * completed while uploading its frames of real sky (`sky`) or a placeholder file and its preview,
 * and obeys `cancel`. It can be told to fail or
 * abort the next observation, go unsafe, hold for weather, say goodbye, fall silent, stall its
 * network or drop off without a word. Events beyond the client's: `status` (each status it
 * reported), `file` (each file it uploaded) and, drawing real sky, `frame` ({file, facts}: what
 * went into each frame).
 */
export class ObservatorySimulator extends ObservatoryClient {
  readonly options: Required<Omit<SimulatorOptions, "log" | "systemInfo" | "equipment" | "sleep" | "pause" | "sky">> &
    Pick<SimulatorOptions, "log" | "systemInfo" | "equipment" | "sleep" | "pause" | "sky">;
  /** The camera on real sky, null when none was asked for or the catalog cannot be drawn from. */
  private readonly camera: Promise<SkyCamera | null>;
  private current: { id: string; cancelled: boolean } | undefined;
  private nextOutcome: Outcome = "complete";
  readonly received: ServerToPluginMessage[] = [];

  constructor(options: SimulatorOptions) {
    const filled = { pluginVersion: "3.8.0.0", speed: 1, heartbeatSeconds: 30, imageBytes: 64 * 1024, reconnect: false, ...options };
    if (options.sky) filled.equipment = skyEquipment(options.equipment);
    super(filled);
    this.options = filled;
    this.camera = this.openCamera();
    this.on("message", (message: ServerToPluginMessage) => this.received.push(message));
    this.on("assign", (observation: AssignedObservation) => {
      // The server repeats an unstarted assignment after each hello: the one in hand is not run twice.
      if (this.current?.id === observation.id) return;
      void this.run(observation).catch((error) => this.log(`observation failed: ${error}`));
    });
    this.on("cancel", (observationId: string) => {
      if (this.current?.id === observationId) this.current.cancelled = true;
    });
  }

  private async openCamera(): Promise<SkyCamera | null> {
    const { sky, equipment } = this.options;
    if (!sky) return null;
    const opened = await SkyCamera.open(sky, opticsOf(equipment)).catch((error: Error) => ({ missing: error.message }));
    if (!("missing" in opened)) return opened;
    this.log(`no real sky: ${opened.missing}; uploading a placeholder image and preview per observation instead (STAR_CATALOG_DIR names the catalog)`);
    return null;
  }

  get observationInHand(): string | undefined {
    return this.current?.id;
  }

  /** The next assignment fails or aborts instead of completing. */
  willEndWith(outcome: Outcome) {
    this.nextOutcome = outcome;
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

  private async report(observationId: string, status: ObservationStatus, reason?: string) {
    await this.acrossReconnects(`${status} of ${observationId}`, (retry) =>
      this.reportStatus(observationId, status, reason).catch((error: Error & { code?: string }) => {
        // A report whose ack the cut connection lost: the server has it already.
        if (retry && error.code === "INVALID_TRANSITION") return;
        throw error;
      }),
    );
    this.emit("status", { observationId, status });
    this.log(`${observationId}: ${status}`);
  }

  /**
   * Runs `work` and, when the connection was lost under it (its server process died, the link
   * broke), again once connected anew, as a plugin carries its night through a server's restart.
   * A refusal for now (`refusedForNow`: the server's database or storage busy or its disk full,
   * maintenance, a rate limit) is sent again after a pause, connection or not: the server kept nothing of it, and a status never
   * reported would leave the observation where it was for good. The pause is the server's
   * `retryAfter` when it gave one, else a growing one (`backoffMs`), so a network's plugins do not
   * press a struggling server every second. Any other refusal (an error with a code, or an HTTP
   * 4xx) is final; so is a connection that will not return.
   */
  private async acrossReconnects<T>(what: string, work: (retry: boolean) => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    let refusalsForNow = 0;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await work(attempt > 1);
      } catch (error) {
        const { code, status, retryAfter } = error as { code?: unknown; status?: number; retryAfter?: number };
        if (refusedForNow(error) && Date.now() - startedAt < GIVE_UP_WHEN_REFUSED_FOR_NOW_MS) {
          refusalsForNow += 1;
          const pauseMs = retryAfter ? askedPauseMs(retryAfter) : backoffMs(refusalsForNow);
          this.log(`${what}: ${(error as Error).message}; again in ${(pauseMs / 1000).toFixed(1)} s`);
          await (this.options.pause ? this.options.pause(pauseMs) : new Promise((resolve) => setTimeout(resolve, pauseMs)));
          continue;
        }
        // The server refused (a code, or an HTTP 4xx): final. A 502 or a cut connection: try again.
        const refused = typeof code === "string" || (status !== undefined && status >= 400 && status < 500);
        if (refused || !this.options.reconnect || attempt >= RETRIES_ACROSS_RECONNECTS) throw error;
        this.log(`${what}: ${(error as Error).message}; again once connected`);
        if (!this.connected) await this.nextConnection();
        else await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  private nextConnection(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no connection within a minute")), 60_000);
      this.once("reconnected", () => {
        clearTimeout(timer);
        resolve();
      });
    });
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
      const camera = await this.camera;
      if (camera) await this.uploadFrames(observation, camera, current);
      else {
        const image = await this.upload(observation.id, `${observation.targets[0]?.name ?? "target"}.fits`, "application/fits", this.image());
        await this.upload(observation.id, "preview.png", "image/png", PREVIEW_PNG, image.id);
      }
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

  /**
   * One frame of real sky a planned exposure (targets, their exposure lines, each line's count), up
   * to MAX_FRAMES_PER_OBSERVATION, each drawn, uploaded and let go before the next: one frame in
   * memory at a time. DATE-OBS runs on from now by the exposure times.
   */
  private async uploadFrames(observation: AssignedObservation, camera: SkyCamera, current: { cancelled: boolean }) {
    const shots = observation.targets.flatMap((target) =>
      target.exposures.flatMap((exposure) => Array.from({ length: exposure.count }, (_, index) => ({ target, exposure, index }))),
    );
    if (shots.length > MAX_FRAMES_PER_OBSERVATION) this.log(`${observation.id}: uploading the first ${MAX_FRAMES_PER_OBSERVATION} of ${shots.length} frames`);
    let startedAt = Date.now();
    for (const { target, exposure, index } of shots.slice(0, MAX_FRAMES_PER_OBSERVATION)) {
      if (current.cancelled) return;
      const binning = Number.isInteger(exposure.binning) && (exposure.binning as number) >= 1 ? (exposure.binning as number) : 1;
      const { bytes, facts } = await camera.expose({
        target,
        filter: exposure.filter,
        exposureSeconds: exposure.exposureSeconds,
        binning,
        startedAt: new Date(startedAt),
      });
      startedAt += exposure.exposureSeconds * 1000;
      // A target or filter may hold a slash, which no filename may (nor control characters, which neither may hold).
      const name = `${target.name.slice(0, 150)} ${exposure.filter} ${exposure.exposureSeconds}s ${String(index + 1).padStart(3, "0")}`;
      const filename = `${name.replace(/[/\\]/g, "-")}.fits`;
      const file = await this.upload(observation.id, filename, "application/fits", bytes);
      const sky = [`${facts.stars} stars`, `${(facts.pointingErrorArcsec / 60).toFixed(1)}′ off target`, ...(facts.clouded ? ["clouded"] : [])];
      this.log(`${observation.id}: ${filename} (${sky.join(", ")})`);
      this.emit("frame", { file, facts } satisfies SkyFrameUpload);
    }
  }

  private image(): Buffer {
    const bytes = Buffer.alloc(this.options.imageBytes);
    Buffer.from("SIMPLE  =                    T / simulated by Meridian's observatory simulator").copy(bytes);
    return bytes;
  }

  private async upload(observationId: string, filename: string, contentType: string, body: Buffer, previewOf?: string): Promise<UploadedFile> {
    // A view of the bytes, not a copy: a frame is megabytes.
    const view = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    const file = await this.acrossReconnects(`upload of ${filename}`, () => this.uploadFile({ observationId, filename, contentType, body: view, previewOf }));
    this.emit("file", file);
    return file;
  }
}

export type { SkySettings } from "./sky/camera";

/** What a `frame` event carries: the uploaded file and what went into its frame. */
export interface SkyFrameUpload {
  file: UploadedFile;
  facts: FrameFacts;
}

/** A simulated night uploads this many frames of one observation at most (a count of 10,000 would be gigabytes). */
const MAX_FRAMES_PER_OBSERVATION = 50;

/** How many times a report or an upload is tried across lost connections before the run gives up. */
const RETRIES_ACROSS_RECONNECTS = 5;

/** A restore's maintenance lasts minutes on a large server: ten minutes of tries, then the run gives up. */
const GIVE_UP_WHEN_REFUSED_FOR_NOW_MS = 10 * 60_000;

/** A 1×1 PNG, the smallest honest preview. */
const PREVIEW_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

import { observatoriesSeen } from "@meridian/domain/observatories";
import { type Deps } from "@meridian/domain/platform";

type Standing = "current" | "replaced";

interface WaitingSighting {
  observatoryId: string;
  connectionId: string;
  at: Date;
  /** Told, once the batch is written, whether the connection is still its observatory's live one. */
  settle(standing: Standing): void;
}

/** How long sightings gather before one statement writes them; a short wait next to the minute between a connection's writes. */
const BATCH_WINDOW_MS = 1_000;
/** A full batch is written at once, so a statement never carries more than this many. */
const BATCH_LIMIT = 1_000;

/**
 * A process's live connections' sightings, gathered and written together (issue 26): with 1,000
 * observatories that is one statement a second at most, not one per observatory. A lost batch
 * (the database unreachable) only makes those sightings a minute older; the next ones follow.
 */
class SightingBatches {
  private waiting = new Map<string, WaitingSighting>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: Deps) {}

  add(sighting: WaitingSighting) {
    this.waiting.set(sighting.connectionId, sighting);
    if (this.waiting.size >= BATCH_LIMIT) return void this.write();
    if (this.timer) return;
    this.timer = setTimeout(() => void this.write(), BATCH_WINDOW_MS);
    this.timer.unref();
  }

  /**
   * A closed connection's waiting sighting is dropped: its close records when it was last heard
   * (or a newer connection speaks for its observatory), and a stopping server's pool may already
   * be gone when the batch's second is up.
   */
  forget(connectionId: string) {
    this.waiting.delete(connectionId);
    if (this.waiting.size > 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async write() {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.waiting.values()];
    this.waiting.clear();
    if (batch.length === 0) return;
    try {
      const standings = await observatoriesSeen({
        deps: this.deps,
        sightings: batch.map(({ observatoryId, connectionId, at }) => ({ observatoryId, connectionId, at })),
      });
      for (const sighting of batch) sighting.settle(standings.get(sighting.connectionId) ?? "replaced");
    } catch (error) {
      this.deps.logger.warn({ err: error, sightings: batch.length }, "could not record the observatories' sightings; the next ones follow within a minute");
    }
  }
}

const batchesOfProcess = new WeakMap<Deps, SightingBatches>();

/** The sighting batches of the process whose services these are (a test process runs several servers, each its own). */
export function sightingBatches(deps: Deps): SightingBatches {
  let batches = batchesOfProcess.get(deps);
  if (!batches) batchesOfProcess.set(deps, (batches = new SightingBatches(deps)));
  return batches;
}

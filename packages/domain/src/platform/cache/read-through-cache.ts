import { SharedReads } from "./shared-reads";
import { TtlCache } from "./ttl-cache";

/**
 * A bounded cache of database reads. The requests that miss one key together share one read
 * (`SharedReads`), and an answer is kept only if nothing was dropped from the cache since its read
 * began: a read that raced a change (a logout, a new announcement, a status change) may not show it.
 * Every way to drop entries moves the generation on, so no invalidation can forget to.
 */
export class ReadThroughCache<Value> {
  private readonly entries: TtlCache<Value>;
  private readonly underway = new SharedReads<Value | undefined>();
  private generation = 0;

  constructor(options: ConstructorParameters<typeof TtlCache<Value>>[0]) {
    this.entries = new TtlCache(options);
  }

  get(key: string, now: number): Value | undefined {
    return this.entries.get(key, now);
  }

  set(key: string, value: Value, expiresAt: number): void {
    this.entries.set(key, value, expiresAt);
  }

  /**
   * `read`'s answer for a key `get` missed, kept until `expiresAt(answer)` (an undefined answer is not
   * kept). `alone`: a read of its own, that neither joins nor is joined (an answer that must be the
   * database's at this moment).
   */
  fill<Found extends Value | undefined>(
    key: string,
    read: () => Promise<Found>,
    expiresAt: (value: Value) => number,
    options: { alone?: boolean } = {},
  ): Promise<Found> {
    const generation = this.generation;
    const readAndKeep = async () => {
      const found = await read();
      if (found !== undefined && generation === this.generation) this.entries.set(key, found, expiresAt(found));
      return found;
    };
    return options.alone ? readAndKeep() : (this.underway.read(key, generation, readAndKeep) as Promise<Found>);
  }

  delete(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
  }

  deleteWhere(predicate: (value: Value, key: string) => boolean): void {
    this.generation += 1;
    this.entries.deleteWhere(predicate);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  get weight(): number {
    return this.entries.weight;
  }
}

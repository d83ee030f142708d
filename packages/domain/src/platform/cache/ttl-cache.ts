/**
 * A small bounded map whose entries expire. Insertion order doubles as age: when full, the
 * oldest entry goes. Entries are checked against the actor's clock, so tests that move
 * `deps.now` see expiry too. With `weigh`, the entries' total weight (bytes, say) is bounded too.
 */
export class TtlCache<Value> {
  private readonly entries = new Map<string, { value: Value; expiresAt: number; weight: number }>();
  private totalWeight = 0;

  constructor(private readonly options: { maxEntries: number; maxWeight?: number; weigh?: (value: Value) => number }) {}

  get(key: string, now: number): Value | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: Value, expiresAt: number): void {
    this.delete(key);
    const weight = this.options.weigh?.(value) ?? 0;
    // An entry heavier than the whole budget would only push everything else out.
    if (weight > (this.options.maxWeight ?? Infinity)) return;
    while (this.entries.size >= this.options.maxEntries || this.totalWeight + weight > (this.options.maxWeight ?? Infinity))
      this.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt, weight });
    this.totalWeight += weight;
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalWeight -= entry.weight;
  }

  deleteWhere(predicate: (value: Value, key: string) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value, key)) this.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.totalWeight = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entries' total weight, by `weigh`. */
  get weight(): number {
    return this.totalWeight;
  }
}

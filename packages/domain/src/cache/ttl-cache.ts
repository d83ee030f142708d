/**
 * A small bounded map whose entries expire. Insertion order doubles as age: when full, the
 * oldest entry goes. Entries are checked against the actor's clock, so tests that move
 * `deps.now` see expiry too.
 */
export class TtlCache<Value> {
  private readonly entries = new Map<string, { value: Value; expiresAt: number }>();

  constructor(private readonly options: { maxEntries: number }) {}

  get(key: string, now: number): Value | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: Value, expiresAt: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  deleteWhere(predicate: (value: Value, key: string) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value, key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

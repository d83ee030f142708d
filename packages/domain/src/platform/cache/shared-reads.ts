/**
 * Reads of one cache key that start while another of the same generation is under way wait for
 * it instead of asking the database again: when a hot entry expires under load, the hundred
 * requests that find it gone cost one read, not a hundred at once. A read begun before a change
 * (an older generation) is never joined, so a caller that has just written still reads its write.
 * Only reads under way are held, so this never holds more than the requests waiting on it.
 */
export class SharedReads<Value> {
  private readonly underway = new Map<string, { generation: number; result: Promise<Value> }>();

  read(key: string, generation: number, read: () => Promise<Value>): Promise<Value> {
    const current = this.underway.get(key);
    if (current?.generation === generation) return current.result;
    const entry = { generation, result: read() };
    this.underway.set(key, entry);
    const forget = () => {
      if (this.underway.get(key) === entry) this.underway.delete(key);
    };
    entry.result.then(forget, forget);
    return entry.result;
  }

  /** How many reads are under way (for tests and bounds). */
  get size(): number {
    return this.underway.size;
  }
}

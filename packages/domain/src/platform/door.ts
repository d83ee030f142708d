/**
 * A door one feature declares and a feature that builds on it fills from its own index.ts, so that the lower feature
 * imports no feature that reads it back. `get` fails loudly, saying `unfilled`, in a process that never loaded the filler.
 */
export function defineDoor<T>(unfilled: string): { fill(implementation: T): void; get(): T } {
  let filled: T | undefined;
  return {
    fill(implementation) {
      filled = implementation;
    },
    get() {
      if (filled === undefined) throw new Error(unfilled);
      return filled;
    },
  };
}

/** A Park–Miller generator: small, seeded, the same on every machine (the planner's shuffles, the seeded test networks). */
export function seededRandom(seed: number) {
  let state = Math.max(1, Math.floor(seed) % 2147483647);
  return () => {
    state = (state * 16807) % 2147483647;
    return (state - 1) / 2147483646;
  };
}

/** Runs `run` once and says what it took: wall and CPU (user + system) milliseconds of this process. */
export function timed<T>(run: () => T) {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const value = run();
  const used = process.cpuUsage(cpu);
  return { value, wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
}

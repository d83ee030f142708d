import { describe, expect, it } from "vitest";
import { updatedAtIso } from "./batch-reader";

/** `updated_at` as PostgreSQL writes it as text (the form the repair's driver reads back). */
function postgresText(microseconds: bigint) {
  const millis = microseconds / 1000n;
  const iso = new Date(Number(millis)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${String(microseconds % 1_000_000n).padStart(6, "0")}+00`;
}

describe("a scanned document's updated_at", () => {
  it("reads the float epoch PostgreSQL sends to the same millisecond as the timestamp's text", () => {
    const edges = [0n, 1n, 999n, 1000n, 999_999n, 574_000n, 574_999n, 575_000n];
    const base = 1_795_439_691n * 1_000_000n;
    const samples = [...edges.map((offset) => base + offset)];
    for (let i = 0; i < 20_000; i += 1) samples.push(base + BigInt(Math.floor(Math.random() * 4e14)) - 2n * 10n ** 14n);
    for (const microseconds of samples) {
      // What date_part('epoch', ...) computes: microseconds over 1e6, in a double.
      const epochSeconds = Number(microseconds) / 1_000_000;
      expect([microseconds, updatedAtIso(epochSeconds)]).toEqual([microseconds, new Date(postgresText(microseconds)).toISOString()]);
    }
  });
});

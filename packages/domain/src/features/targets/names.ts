/**
 * How target names are compared: one key per spelling, so `M31`, `m 31`, `Messier 31` and `M031`
 * meet, as do `NGC 224`, `NGC0224` and `ngc224`, `α Lyr` and `alpha lyr`, `Barnard's` and
 * `Barnards`. The catalog builder and the in-memory index use the same function, so a name the
 * builder kept is a name the index finds.
 */

const GREEK: Record<string, string> = {
  α: "alpha",
  β: "beta",
  γ: "gamma",
  δ: "delta",
  ε: "epsilon",
  ζ: "zeta",
  η: "eta",
  θ: "theta",
  ι: "iota",
  κ: "kappa",
  λ: "lambda",
  μ: "mu",
  ν: "nu",
  ξ: "xi",
  ο: "omicron",
  π: "pi",
  ρ: "rho",
  σ: "sigma",
  τ: "tau",
  υ: "upsilon",
  φ: "phi",
  χ: "chi",
  ψ: "psi",
  ω: "omega",
};

/** The letters of a name spelled out (`α1 Cen` → `alpha1 Cen`). */
export function spellGreek(name: string): string {
  return name.replace(/[α-ω]/g, (letter) => GREEK[letter] ?? letter);
}

/**
 * The comparison key of a name: Greek letters spelled out, accents and case dropped, leading zeros
 * of each number dropped (`0224` → `224`, before separators go, so `ESO 056-015` and `ESO 56-15`
 * meet), `Messier` before a number read as `M`, and everything but letters and digits removed.
 */
export function nameKey(name: string): string {
  const key = spellGreek(name.toLowerCase())
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/(^|\D)0+(?=\d)/g, "$1")
    .replace(/[^a-z0-9]/g, "");
  return key.replace(/^messier(?=\d)/, "m");
}

/**
 * Where a name's words begin, as keys of the rest of the name from there: `Great Orion Nebula` →
 * `orionnebula`, `nebula`; `NGC 1976` → `1976`; `M42` → `42` (a catalog letter fused to its number).
 * The whole name's key is not among them.
 */
export function wordKeys(name: string): string[] {
  const starts = new Set<number>();
  for (const match of name.matchAll(/[\s\-/(),&+]+/g)) starts.add(match.index + match[0].length);
  const fused = /^[A-Za-z]{1,3}(?=\d)/.exec(name);
  if (fused) starts.add(fused[0].length);
  const keys: string[] = [];
  for (const start of [...starts].sort((a, b) => a - b)) {
    if (start <= 0 || start >= name.length) continue;
    const key = nameKey(name.slice(start));
    if (key !== "" && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

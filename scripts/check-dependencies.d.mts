/** The parts of dependency-cruiser's JSON result the checks read. */
export interface CruiseResult {
  modules: { source: string; dependencies: { resolved: string }[] }[];
  summary: { violations: { rule: { name: string }; from: string; to: string }[] };
}

export function twoWayPairs(result: CruiseResult): string[];
export function cruiseDomain(root: string, folders?: string[]): CruiseResult;

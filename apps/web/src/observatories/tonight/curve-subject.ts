/** The target an altitude curve follows (the plan samples an observation's first target only), and how many it has. */
export interface CurveTarget {
  name: string;
  count: number;
}

/** "altitude of Vega", or "altitude of M 31, the first of 3 targets". */
export const curveSubject = (target: CurveTarget) => `altitude of ${target.name}${target.count > 1 ? `, the first of ${target.count} targets` : ""}`;

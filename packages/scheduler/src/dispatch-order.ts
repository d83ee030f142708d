/** What the order of dispatch reads of an observation. */
interface Ordered {
  id: string;
  createdAt: Date;
  doc: { priority: number };
}

/** Highest priority first, then oldest, then by id: the order of dispatch's query (the array is sorted in place). */
export function inDispatchOrder<Observation extends Ordered>(observations: Observation[]) {
  return observations.sort(
    (a, b) => b.doc.priority - a.doc.priority || a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

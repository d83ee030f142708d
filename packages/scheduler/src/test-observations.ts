import type { Schedulable, SchedulingDoc } from "./inputs";

type TestTarget = {
  name: string;
  ra: number;
  dec: number;
  epoch: string;
  exposures: Array<{ filter: string; exposureSeconds: number; count: number; binning: number }>;
};
/** An observation's document as the tests write it: what the engine reads, and the other fields a stored one has. */
export type ObservationDoc = Omit<SchedulingDoc, "targets" | "constraints"> & {
  targets: TestTarget[];
  constraints: Required<SchedulingDoc["constraints"]>;
  priority: number;
  [field: string]: unknown;
};
/** An observation as the domain passes it: an id, its document and its times. */
export type StoredDocument<Doc extends SchedulingDoc> = Schedulable & { doc: Doc; createdAt: Date; updatedAt: Date };

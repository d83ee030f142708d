import type { AnyOperation } from "./define-operation";
import { projectOperations } from "./projects";

/** Every operation with a REST face, mounted by the REST adapter; the tRPC router names them by feature. */
export const allOperations: AnyOperation[] = [...Object.values(projectOperations)];

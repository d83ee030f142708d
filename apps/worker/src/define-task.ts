import type { Deps, JobContract } from "@meridian/domain/platform";
import type { Task } from "graphile-worker";
import type { z } from "zod";

export interface TaskServices {
  deps: Deps;
}

type Handler<Schema extends z.ZodType> = (payload: z.infer<Schema>, services: TaskServices, helpers: Parameters<Task>[1]) => Promise<void>;

export interface DefinedTask {
  name: string;
  create(services: TaskServices): Task;
}

/**
 * A task for a job of the contract (packages/domain/src/platform/jobs/contracts.ts): its payload is
 * validated by the contract's zod schema before any work starts, and a bad payload fails the job.
 * The `(name, schema, handler)` form is for tasks outside the contract (tests).
 */
export function defineTask<Schema extends z.ZodType>(contract: JobContract<string, Schema>, handler: Handler<Schema>): DefinedTask;
export function defineTask<Schema extends z.ZodType>(name: string, schema: Schema, handler: Handler<Schema>): DefinedTask;
export function defineTask<Schema extends z.ZodType>(
  first: JobContract<string, Schema> | string,
  second: Schema | Handler<Schema>,
  third?: Handler<Schema>,
): DefinedTask {
  const [name, schema, handler] = typeof first === "string" ? [first, second as Schema, third!] : [first.name, first.payload, second as Handler<Schema>];
  return {
    name,
    create(services: TaskServices): Task {
      return async (payload, helpers) => {
        const parsed = schema.safeParse(payload);
        if (!parsed.success) throw new Error(`invalid payload for ${name}: ${parsed.error.message}`);
        await handler(parsed.data, services, helpers);
      };
    },
  };
}

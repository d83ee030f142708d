import type { Deps } from "@meridian/domain";
import type { Task } from "graphile-worker";
import type { z } from "zod";

export interface TaskServices {
  deps: Deps;
}

/** A task whose payload is validated by zod before any work starts; a bad payload fails the job. */
export function defineTask<Schema extends z.ZodType>(name: string, schema: Schema, handler: (payload: z.infer<Schema>, services: TaskServices, helpers: Parameters<Task>[1]) => Promise<void>) {
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

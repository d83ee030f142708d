import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

/** JSON lines to stdout, or to `destination` (a test reading what a process logs). */
export function createLogger(options: { level: string; name?: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      name: options.name,
      base: undefined,
      redact: { paths: ["password", "*.password", "token", "*.token", "authorization", "*.authorization"], remove: true },
    },
    options.destination,
  );
}

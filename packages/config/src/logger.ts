import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(options: { level: string; name?: string }): Logger {
  return pino({
    level: options.level,
    name: options.name,
    base: undefined,
    redact: { paths: ["password", "*.password", "token", "*.token", "authorization", "*.authorization"], remove: true },
  });
}

export { BACKUP_READER_CONNECTIONS, databaseConnectionBudget, type ProcessKind } from "./connection-budget";
export { EnvError, envVariableNames, loadEnv, quietAwsSdkNodeVersionWarning, type Env } from "./env";
export { createLogger, type Logger } from "./logger";
export const SERVER_VERSION = "0.1.0";
export { loadEnvOrExit, runUntilSignalled } from "./process-lifecycle";

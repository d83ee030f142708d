// The door of the feature backups: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./schemas";
export { startBackup, getBackup, listBackups, runBackup, failBackup, startBackupVerification, runBackupVerification } from "./backups";
export { startRestore, runRestore, RestoreRefused, RESTORED_COLLECTIONS } from "./restore";
export { cleanUpBackups } from "./retention";
export { startScheduledBackup } from "./schedule";
export { PARALLEL_SECTION_BYTES } from "./side-tables";
export { startBackupIn } from "./backups";

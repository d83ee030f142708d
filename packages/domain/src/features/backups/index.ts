// The door of the feature backups: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./schemas";
export {
  startBackup,
  getBackup,
  listBackups,
  runBackup,
  failBackup,
  startBackupVerification,
  runBackupVerification,
  BACKUP_JOB_KIND,
  BACKUP_VERIFY_JOB_KIND,
  type ThenCleanup,
} from "./backups";
export { startRestore, runRestore, RestoreRefused, RESTORE_JOB_KIND, RESTORED_COLLECTIONS } from "./restore";
export { cleanUpBackups } from "./retention";
export { startScheduledBackup } from "./schedule";
export { ARCHIVED_COLLECTIONS } from "./archive-io";
export { PARALLEL_SECTION_BYTES } from "./side-tables";

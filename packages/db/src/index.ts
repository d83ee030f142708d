export * from "./client";
export { QueryScope, runInQueryScope } from "./query-scope";
export * from "./collections";
export * from "./documents";
export * from "./migrate";
export { CLIENT_CONNECTION_CHECK_INTERVAL } from "./client-connection-check";
export { foldsUnicodeCase } from "./case-folding";
export * from "./repository";
export * as tables from "./schema";
export { hasEmbeddedCluster, startEmbeddedPostgres, type EmbeddedPostgres } from "./postgres/embedded";
export {
  createObjectStorage,
  isStorageFull,
  isStorageUnreachable,
  optionalCall,
  StorageCallUnsupported,
  type IncompleteUpload,
  type ObjectStorage,
  type ObjectStorageConfig,
} from "./storage/object-storage";
export { embeddedStoreDirectory, startEmbeddedS3, type EmbeddedS3 } from "./storage/embedded-s3";
export { removeAbandonedPartials } from "./storage/abandoned-partials";
export * from "./observation-documents";
export * from "./integrity-documents";
export * from "./backup-documents";
export * from "./invitation-documents";
export { plannedRunOf, readNetworkPlan } from "./network-plan";

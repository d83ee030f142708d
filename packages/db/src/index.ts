export * from "./client";
export * from "./collections";
export * from "./documents";
export * from "./migrate";
export * from "./repository";
export * as tables from "./schema";
export { startEmbeddedPostgres, type EmbeddedPostgres } from "./postgres/embedded";
export { createObjectStorage, type ObjectStorage, type ObjectStorageConfig, type StoredObject } from "./storage/object-storage";
export { startEmbeddedS3, type EmbeddedS3 } from "./storage/embedded-s3";

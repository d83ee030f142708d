import type { Env } from "@meridian/config";
import type { ExternalStorageDoc } from "@meridian/db";
import { dropboxTarget } from "./dropbox-target";
import { driveTarget } from "./drive-target";
import { DeliveryFailure } from "./http";
import { s3Target, type S3Settings } from "./s3-target";
import type { DeliveryTarget } from "./target";

const text = (settings: Record<string, unknown>, key: string) => (typeof settings[key] === "string" ? settings[key] : undefined);

/** The destination as something to write to, with its secrets already opened by the caller (the delivery job or the test button). */
export function targetFor(options: { env: Env; destination: ExternalStorageDoc; secrets: Record<string, string> }): DeliveryTarget {
  const { env, destination, secrets } = options;
  const { settings } = destination;
  const limits = { largeBytes: env.DELIVERY_LARGE_FILE_BYTES, chunkBytes: env.DELIVERY_CHUNK_BYTES };
  switch (destination.kind) {
    case "s3": {
      const bucket = text(settings, "bucket");
      if (!bucket) throw new DeliveryFailure("The destination names no bucket");
      const s3: S3Settings = {
        bucket,
        region: text(settings, "region") ?? "us-east-1",
        endpoint: text(settings, "endpoint"),
        prefix: text(settings, "prefix"),
        forcePathStyle: settings.forcePathStyle === true || settings.forcePathStyle === "true",
      };
      return s3Target({ settings: s3, secrets, limits });
    }
    case "dropbox":
      return dropboxTarget({
        settings: { folder: text(settings, "folder") ?? "" },
        secrets,
        urls: { api: env.DROPBOX_API_URL, content: env.DROPBOX_CONTENT_URL },
        limits,
      });
    case "google_drive": {
      const folderId = text(settings, "folderId");
      if (!folderId) throw new DeliveryFailure("The destination names no folderId");
      return driveTarget({ settings: { folderId }, secrets, urls: { oauth: env.GOOGLE_OAUTH_URL, drive: env.GOOGLE_DRIVE_URL }, limits });
    }
  }
}

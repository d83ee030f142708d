import { ProblemError } from "./errors";

export const MAX_AVATAR_BYTES = 2 * 1024 * 1024;
export const ACCEPTED_AVATAR_TYPES = "image/png,image/jpeg,image/gif";

export interface AvatarUploadResult {
  avatarUrl: string;
  contentType: string;
  sizeBytes: number;
}

/** REST, not tRPC: the body is the raw file. The browser adds the Origin header the server checks. */
export async function uploadAvatar(file: Blob): Promise<AvatarUploadResult> {
  const response = await fetch("/api/v1/user/avatar", {
    method: "PUT",
    body: file,
    credentials: "same-origin",
    headers: { "content-type": file.type || "application/octet-stream" },
  });
  if (!response.ok) throw await ProblemError.fromResponse(response);
  return (await response.json()) as AvatarUploadResult;
}

export function avatarErrorMessage(error: unknown): string {
  if (error instanceof ProblemError) {
    if (error.status === 413) return "That file is too large. Avatars may be at most 2 MB.";
    if (error.status === 415) return "That file is not a supported image. Use a JPG, PNG or GIF.";
    return error.message;
  }
  return error instanceof Error ? error.message : "The upload failed.";
}

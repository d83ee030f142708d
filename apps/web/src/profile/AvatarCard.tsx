import { useId, useRef, useState, type ChangeEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { ImageUp } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { UserAvatar } from "../components/UserAvatar";
import { ACCEPTED_AVATAR_TYPES, avatarErrorMessage, MAX_AVATAR_BYTES, uploadAvatar } from "../lib/avatar-upload";
import { refreshIdentity, type Profile } from "./useProfile";
import { useObjectUrl } from "./useObjectUrl";

export function AvatarCard({ profile }: { profile: Profile }) {
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const [previewFailed, setPreviewFailed] = useState(false);
  const previewUrl = useObjectUrl(file);
  const upload = useMutation({
    mutationFn: uploadAvatar,
    onSuccess: async () => {
      clearSelection();
      await refreshIdentity();
    },
  });

  function clearSelection() {
    setFile(null);
    setPreviewFailed(false);
    if (inputRef.current) inputRef.current.value = "";
  }

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0] ?? null;
    upload.reset();
    setPreviewFailed(false);
    setLocalError(chosen && chosen.size > MAX_AVATAR_BYTES ? "That file is too large. Avatars may be at most 2 MB." : null);
    setFile(chosen);
  };

  const error = localError ?? (upload.isError ? avatarErrorMessage(upload.error) : null);

  return (
    <Card title="Avatar" description="JPG, PNG or GIF, at most 2 MB. It appears next to your name across Meridian.">
      <div className="flex flex-col gap-5 sm:flex-row sm:items-start">
        <div className="flex items-center gap-4">
          <figure className="flex flex-col items-center gap-1">
            <UserAvatar name={profile.name} url={profile.avatarUrl} size="lg" alt="Current avatar" />
            <figcaption className="text-xs text-slate-500">Current</figcaption>
          </figure>
          {file ? (
            <figure className="flex flex-col items-center gap-1">
              {previewUrl && !previewFailed ? (
                <img
                  src={previewUrl}
                  alt="New avatar preview"
                  className="size-20 rounded-full bg-slate-100 object-cover ring-2 ring-indigo-500"
                  onError={() => setPreviewFailed(true)}
                />
              ) : (
                <span
                  className={
                    "flex size-20 items-center justify-center rounded-full bg-slate-100 px-2 text-center " + "text-xs text-slate-500 ring-2 ring-slate-300"
                  }
                >
                  No preview
                </span>
              )}
              <figcaption className="text-xs text-slate-500">New</figcaption>
            </figure>
          ) : null}
        </div>

        <div className="flex min-w-0 flex-1 flex-col gap-3">
          <div>
            <label htmlFor={inputId} className="block text-sm font-medium text-slate-700">
              Choose an image
            </label>
            <input
              ref={inputRef}
              id={inputId}
              type="file"
              accept={ACCEPTED_AVATAR_TYPES}
              onChange={choose}
              className={
                "mt-1.5 block w-full text-sm text-slate-600 file:mr-3 file:rounded-md file:border-0 " +
                "file:bg-indigo-50 file:px-3 file:py-2 file:text-sm file:font-semibold file:text-indigo-700 " +
                "hover:file:bg-indigo-100"
              }
            />
            {file ? (
              <p className="mt-1.5 truncate text-sm text-slate-500">
                {file.name} · {formatSize(file.size)}
              </p>
            ) : null}
          </div>
          {error ? <Alert tone="error">{error}</Alert> : null}
          {upload.isSuccess ? <Alert tone="success">Your new avatar is saved.</Alert> : null}
          {file ? (
            <div className="flex flex-wrap gap-2">
              <Button
                icon={<ImageUp aria-hidden="true" className="size-4" />}
                busy={upload.isPending}
                disabled={Boolean(localError)}
                onClick={() => upload.mutate(file)}
              >
                Upload avatar
              </Button>
              <Button
                variant="secondary"
                disabled={upload.isPending}
                onClick={() => {
                  clearSelection();
                  setLocalError(null);
                  upload.reset();
                }}
              >
                Cancel
              </Button>
            </div>
          ) : null}
        </div>
      </div>
    </Card>
  );
}

function formatSize(bytes: number) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

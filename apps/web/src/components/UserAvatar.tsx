import { useState } from "react";

const sizes = { sm: "size-8 text-xs", md: "size-10 text-sm", lg: "size-20 text-2xl" } as const;

function initials(name: string) {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0]![0], parts[parts.length - 1]![0]] : [parts[0]?.[0]];
  return letters.join("").toUpperCase() || "?";
}

/** The user's picture, or their initials when there is none (or it fails to load). */
export function UserAvatar({ name, url, size = "sm", alt = "" }: { name: string; url: string | null | undefined; size?: keyof typeof sizes; alt?: string }) {
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  const box = `inline-flex shrink-0 items-center justify-center overflow-hidden rounded-full ${sizes[size]}`;
  if (url && failedUrl !== url) {
    return <img src={url} alt={alt} className={`${box} bg-slate-100 object-cover`} onError={() => setFailedUrl(url)} />;
  }
  return (
    <span
      role={alt ? "img" : undefined}
      aria-label={alt || undefined}
      aria-hidden={alt ? undefined : true}
      className={`${box} bg-indigo-100 font-semibold text-indigo-700`}
    >
      {initials(name)}
    </span>
  );
}

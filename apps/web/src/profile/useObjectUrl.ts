import { useEffect, useState } from "react";

/** A blob: URL for a local file, released when the file changes or the component goes away. */
export function useObjectUrl(file: Blob | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file) {
      // Made and released in the same effect, so that StrictMode's second run cannot revoke a URL still shown.
      // eslint-disable-next-line react-hooks/set-state-in-effect -- the URL is an external resource with a lifetime, not derived state
      setUrl(null);
      return;
    }
    const next = URL.createObjectURL(file);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [file]);
  return url;
}

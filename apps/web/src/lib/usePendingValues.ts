import { useState } from "react";

/**
 * Values shown at once while saving them is under way (a checkbox that flips on click);
 * once settled, the server's answer shows instead, or the old value if the call failed.
 */
export function usePendingValues<T>() {
  const [pending, setPending] = useState<Record<string, T>>({});
  return {
    pending,
    start: (key: string, next: (current: T | undefined) => T) => setPending((all) => ({ ...all, [key]: next(all[key]) })),
    settle: (key: string) => setPending(({ [key]: _settled, ...rest }) => rest),
  };
}

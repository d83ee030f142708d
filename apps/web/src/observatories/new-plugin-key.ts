import { useSyncExternalStore } from "react";

/**
 * The plugin key created last in this tab, per observatory, so the dashboard's checklist can show
 * the simulator command with it after the keys tab made it. Kept in memory only: the server
 * shows a key once, and it goes with a reload or when the user says it is saved.
 */
const keys = new Map<string, string>();
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((listener) => listener());

export function rememberNewPluginKey(observatoryId: string, key: string) {
  keys.set(observatoryId, key);
  changed();
}

export function forgetNewPluginKey(observatoryId: string) {
  if (keys.delete(observatoryId)) changed();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

export function useNewPluginKey(observatoryId: string | undefined): string | undefined {
  return useSyncExternalStore(subscribe, () => (observatoryId ? keys.get(observatoryId) : undefined));
}

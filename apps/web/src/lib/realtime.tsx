import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import type { RealtimeEvents as SharedRealtimeEvents } from "@meridian/rules/events";
import type { RouterOutputs } from "../organizations/types";

type Announcement = RouterOutputs["announcements"]["pending"]["items"][number];

/** What the server pushes over `/ws`, by message type: the shared schemas, with the announcement as tRPC types it. */
export type RealtimeEvents = SharedRealtimeEvents<Announcement>;
export type RealtimeEventType = keyof RealtimeEvents;

type Listener = (data: unknown) => void;

interface RealtimeHub {
  subscribe(type: string, listener: Listener): () => void;
  /** Called whenever the socket opens, the first time too: events sent before it was open are lost, so lists may be stale. */
  onReconnect(listener: () => void): () => void;
}

/** A ref that always holds the last rendered value, so long-lived listeners call the current handler. */
function useLatest<T>(value: T) {
  const ref = useRef(value);
  useEffect(() => {
    ref.current = value;
  });
  return ref;
}

const RealtimeContext = createContext<RealtimeHub | null>(null);

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
/** Closed by the server because the session ended or the key was revoked. */
const CREDENTIALS_GONE = 4401;

const socketUrl = () => `${window.location.protocol === "https:" ? "wss" : "ws"}://${window.location.host}/ws`;

/**
 * One WebSocket per signed-in tab (same origin, so the session cookie authenticates it), reconnected
 * with growing, jittered delays. Components listen by event type with `useRealtimeEvent`.
 * `onCredentialsGone` runs when the server closes the socket because the session is no longer valid.
 */
export function RealtimeProvider({ children, onCredentialsGone }: { children: ReactNode; onCredentialsGone?(): void }) {
  const listeners = useRef(new Map<string, Set<Listener>>());
  const reconnectListeners = useRef(new Set<() => void>());
  const credentialsGone = useLatest(onCredentialsGone);
  const [hub] = useState<RealtimeHub>(() => ({
    subscribe(type, listener) {
      const set = listeners.current.get(type) ?? new Set<Listener>();
      set.add(listener);
      listeners.current.set(type, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.current.delete(type);
      };
    },
    onReconnect(listener) {
      reconnectListeners.current.add(listener);
      return () => reconnectListeners.current.delete(listener);
    },
  }));

  useEffect(() => {
    let socket: WebSocket | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;

    const connect = () => {
      socket = new WebSocket(socketUrl());
      // Every opening, the first included: an event sent before this socket was registered (while
      // a page's first fetch was on its way, or while the socket was down) never reaches it, so
      // what was read before may be stale.
      socket.onopen = () => {
        failures = 0;
        for (const listener of reconnectListeners.current) listener();
      };
      socket.onmessage = (message) => {
        let event: { type?: unknown; data?: unknown };
        try {
          event = JSON.parse(String(message.data));
        } catch {
          return;
        }
        if (typeof event?.type !== "string") return;
        for (const listener of listeners.current.get(event.type) ?? []) listener(event.data);
      };
      socket.onclose = (close) => {
        socket = null;
        if (stopped) return;
        if (close.code === CREDENTIALS_GONE) credentialsGone.current?.();
        // Full jitter: many tabs that lost the server at once do not all come back at once.
        const ceiling = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
        failures += 1;
        retryTimer = setTimeout(connect, ceiling / 2 + Math.random() * (ceiling / 2));
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      socket?.close(1000, "signed out or left the app");
    };
  }, [credentialsGone]);

  return <RealtimeContext.Provider value={hub}>{children}</RealtimeContext.Provider>;
}

/** Calls `handler` for each pushed event of this type while the component is mounted. */
export function useRealtimeEvent<T extends RealtimeEventType>(type: T, handler: (data: RealtimeEvents[T]) => void) {
  const hub = useContext(RealtimeContext);
  const latest = useLatest(handler);
  useEffect(() => hub?.subscribe(type, (data) => latest.current(data as RealtimeEvents[T])), [hub, type, latest]);
}

/** Calls `handler` whenever the socket opens (the first time too, and after a drop): what was read before may have missed events. */
export function useRealtimeReconnect(handler: () => void) {
  const hub = useContext(RealtimeContext);
  const latest = useLatest(handler);
  useEffect(() => hub?.onReconnect(() => latest.current()), [hub, latest]);
}

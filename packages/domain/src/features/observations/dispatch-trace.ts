import diagnosticsChannel from "node:diagnostics_channel";

/**
 * The stages of an observation's way from its submission to its observatory's `assign`, named in
 * the order they happen: the submission's operation starts (its request read, its caller known and
 * its input valid); its transaction commits; a worker picks up the dispatch job; the dispatch
 * transaction commits; a server process hears the event's NOTIFY; it sends `assign` on the plugin's
 * socket.
 */
export type DispatchStage = "request started" | "request committed" | "job started" | "dispatch committed" | "event heard" | "assign sent";

export interface DispatchMark {
  stage: DispatchStage;
  /** Milliseconds since the epoch, sub-millisecond (performance.timeOrigin + performance.now()). */
  at: number;
  observatoryId?: string;
  observationId?: string;
  eventId?: number;
}

/**
 * Where the marks go (node:diagnostics_channel), for bench/dispatch-latency.ts to subscribe in its
 * own process. With no subscriber nothing is built, so the hot path pays one property read.
 */
export const DISPATCH_TRACE_CHANNEL = "meridian:dispatch";
const channel = diagnosticsChannel.channel(DISPATCH_TRACE_CHANNEL);

export function markDispatch(mark: Omit<DispatchMark, "at">): void {
  if (channel.hasSubscribers) channel.publish({ ...mark, at: performance.timeOrigin + performance.now() } satisfies DispatchMark);
}

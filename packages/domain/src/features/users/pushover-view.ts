import type { Deps } from "../../platform/deps";
import type { PushoverView } from "./schemas";

/** Pushover messages need the server's application token beside each user's key. */
export const pushoverConfigured = (deps: Pick<Deps, "env">) => Boolean(deps.env.PUSH_APP_TOKEN);

/** What the profile and the test button say on a server without PUSH_APP_TOKEN. */
export const NO_PUSHOVER_TOKEN =
  "This server has no Pushover application token (PUSH_APP_TOKEN), so nothing is sent to Pushover. Ask the server's administrator to set it.";

/** The profile's masked view of a user's Pushover settings, and whether this server can use them. */
export function presentPushover(options: { deps: Pick<Deps, "env">; pushover: { userKeyHint: string; devices: string[] } | null }): PushoverView {
  const { deps, pushover } = options;
  const settings = pushover
    ? { configured: true, userKeyHint: pushover.userKeyHint, devices: pushover.devices }
    : { configured: false, userKeyHint: null, devices: [] };
  return pushoverConfigured(deps) ? { ...settings, available: true } : { ...settings, available: false, notice: NO_PUSHOVER_TOKEN };
}

import type { Announcement } from "@meridian/domain/announcements";
import type { Observation } from "@meridian/domain/observations";
import type { ServerToPluginMessage } from "@meridian/rules/observatory-protocol";

/**
 * What the server sends an observatory's plugin over `/ws/observatory` (`@meridian/rules/observatory-protocol`),
 * with the API's own observation and announcement in `assign` and `motd`.
 */
export type ObservatoryMessage = ServerToPluginMessage<Observation, Announcement>;

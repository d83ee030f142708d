import { activeStatuses } from "@meridian/rules";
import { activeObservatoryAnnouncements } from "@meridian/domain/announcements";
import { statusesAtObservatory } from "@meridian/domain/observations";
import { type Deps } from "@meridian/domain/platform";
import type { ObservatoryMessage } from "./observatory-message";
import type { ProtocolConnection } from "./protocol";

/** A plugin runs one observation at a time; a few more cover assignments it was told again and never reported on. */
const ASSIGNMENTS_LIMIT = 16;
/** Above the 50 active announcements an observatory's plugin is given at most (`activeObservatoryAnnouncements`). */
const ANNOUNCEMENTS_LIMIT = 64;

/** Adds an id as the newest, dropping the oldest past the limit. */
function remember(ids: Set<string>, id: string, limit: number) {
  ids.delete(id);
  ids.add(id);
  if (ids.size > limit) ids.delete(ids.values().next().value!);
}

/**
 * What a plugin connection was told, as far as it matters after its process's LISTEN connection
 * came back (events published meanwhile reached no socket): the observations it was told to run
 * and not since told cancelled, and the announcements it was given. Bounded, newest kept.
 */
export class ToldToPlugin {
  private readonly assignments = new Set<string>();
  private readonly announcements = new Set<string>();

  /** Every `assign`, `cancel` and `motd` the connection sends passes here first. */
  sending(message: ObservatoryMessage) {
    if (message.type === "assign") remember(this.assignments, message.observation.id, ASSIGNMENTS_LIMIT);
    else if (message.type === "cancel") this.assignments.delete(message.observationId);
    else if (message.type === "motd") remember(this.announcements, message.announcement.id, ANNOUNCEMENTS_LIMIT);
  }

  /**
   * Sends what may have been missed: `cancel` for each remembered observation cancelled meanwhile
   * (a plugin ignores one it does not run), and each active announcement it was not given.
   * Observations that ended otherwise are forgotten.
   */
  async sendMissed(deps: Deps, observatoryId: string, connection: ProtocolConnection<ObservatoryMessage>) {
    const statuses = await statusesAtObservatory({ db: deps.db, observatoryId, observationIds: [...this.assignments] });
    for (const id of [...this.assignments]) {
      const status = statuses.get(id);
      if (status === "cancelled") this.send(connection, { type: "cancel", observationId: id });
      else if (!status || !activeStatuses.includes(status)) this.assignments.delete(id);
    }
    for (const announcement of await activeObservatoryAnnouncements({ deps, observatoryId }))
      if (!this.announcements.has(announcement.id)) this.send(connection, { type: "motd", announcement });
  }

  send(connection: ProtocolConnection<ObservatoryMessage>, message: ObservatoryMessage) {
    this.sending(message);
    connection.send(message);
  }
}

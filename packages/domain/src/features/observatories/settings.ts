import { observatoriesCollection } from "@meridian/db";
import { isDeepStrictEqual } from "node:util";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { requireObservatoryPermission } from "../permissions";
import { recordHistory, settingsOf } from "./observatories";
import { loadOwnerNames } from "./owner-names";
import { lastSightings } from "./presence";
import { presentObservatory } from "./present";
import type { ObservatoryUpdate } from "./schemas";
import { timeZoneAfter } from "./time-and-timing";
import { inTransaction } from "../../platform/transaction";
import { observations } from "./observations-door";

/**
 * `can_admin` changes name, location, dispatch, time zone and the timing settings; history and
 * audit get each changed field before and after (the zone when it was given; one derived from a moved
 * location goes with the location's entry).
 */
export async function updateObservatory(options: { deps: Deps; actor: UserActor; observatoryId: string; input: ObservatoryUpdate }) {
  const { deps, actor, observatoryId, input } = options;
  return inTransaction(deps, async (t) => {
    const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
    const access = await requireObservatoryPermission({ db: t.tx, actor, observatoryId, permission: "can_admin" });
    if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
    const before = settingsOf(observatory.doc);
    const after = {
      name: input.name ?? before.name,
      location: input.location === undefined ? before.location : input.location,
      dispatchEnabled: input.dispatchEnabled ?? before.dispatchEnabled,
      timeZone: timeZoneAfter({ doc: observatory.doc, given: input.timeZone, location: input.location }),
      settings: { ...before.settings, ...input.settings },
    };
    // A zone that only followed a moved location is part of that change, and not an entry of its own.
    const recorded = (key: keyof typeof after) => key !== "timeZone" || input.timeZone !== undefined;
    const changes = Object.fromEntries(
      (Object.keys(after) as Array<keyof typeof after>)
        .filter((key) => recorded(key) && !isDeepStrictEqual(before[key], after[key]))
        .map((key) => [key, { before: before[key], after: after[key] }]),
    );
    const { sources: _sources, ...permissions } = access;
    const owners = await loadOwnerNames({ db: t.tx, owners: [observatory.doc.owner] });
    const ownerName = owners.nameOf(observatory.doc.owner);
    const lastSighting = (await lastSightings({ db: t.tx, observatoryIds: [observatoryId] })).get(observatoryId);
    if (Object.keys(changes).length === 0) return presentObservatory({ observatory, myPermissions: permissions, ownerName, lastSighting });
    const updated = await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({ ...doc, ...after }));
    await recordHistory({ t, observatoryId, type: "settings_changed", actorId: actor.id, data: { changes } });
    // Dispatch switched on, a new location or timing can let a waiting observation start now, not at the next minute's sweep.
    await observations().queueDispatch({ t, observatoryId });
    const scope = { kind: "observatory" as const, id: observatoryId, name: after.name };
    await recordAudit({
      t,
      actor,
      action: "observatory.updated",
      target: scope,
      scope,
      before: Object.fromEntries(Object.entries(changes).map(([key, change]) => [key, change.before])),
      after: Object.fromEntries(Object.entries(changes).map(([key, change]) => [key, change.after])),
    });
    return presentObservatory({ observatory: updated!, myPermissions: permissions, ownerName, lastSighting });
  });
}

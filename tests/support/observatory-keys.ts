import { randomUUID } from "node:crypto";
import type { Account } from "./auth-suite";
import type { jsonApi } from "./json-api";

type Must = ReturnType<typeof jsonApi>["must"];

/** A new plugin key (201) of an observatory that `owner` may administer: the secret a plugin connects and uploads with. */
export const createObservatoryKey = async (must: Must, owner: Account, observatoryId: string) =>
  ((await must(`/observatories/${observatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as { key: string }).key;

/** A new observatory of `owner`'s, uniquely named, and a key for its plugin. */
export async function observatoryWithKey(must: Must, owner: Account) {
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: `Scope ${randomUUID().slice(0, 6)}` } }, 201)) as {
    id: string;
  };
  return { observatoryId: observatory.id, key: await createObservatoryKey(must, owner, observatory.id) };
}

/**
 * An observation of `owner`'s, pending on a new observatory with a key for its plugin (which reports the observation's
 * progress and uploads its files), in a new project named `project`. `observation` holds the name and targets, and may add
 * to the body.
 */
export async function observationWithKey(must: Must, options: { owner: Account; project: string; observation: { name: string; targets: unknown[] } & object }) {
  const { owner } = options;
  const { observatoryId, key } = await observatoryWithKey(must, owner);
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: options.project } }, 201)) as { id: string };
  const observation = (await must(
    "/observations",
    { method: "POST", token: owner.token, json: { projectId: project.id, observatoryId, ...options.observation } },
    201,
  )) as { id: string; name: string };
  return { observatoryId, key, observation };
}

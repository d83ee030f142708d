import { randomUUID } from "node:crypto";
import { ObservatoryClient } from "@meridian/observatory-client";
import type { Account } from "./auth-suite";
import type { jsonApi } from "./json-api";

/** An observatory without a location (no darkness rule), a project, and a key for a plugin, all the owner's. */
export async function observingNetwork(must: ReturnType<typeof jsonApi>["must"], owner: Account) {
  const tag = randomUUID().slice(0, 6);
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: `Scope ${tag}` } }, 201)) as { id: string };
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: `Survey ${tag}` } }, 201)) as { id: string };
  const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as {
    id: string;
    key: string;
  };
  return { observatory, project, key };
}

/** A connected plugin that sends heartbeats only when the test does, and does not reconnect. */
export async function connectQuietPlugin(url: string, key: string) {
  const client = new ObservatoryClient({ url, key, pluginVersion: "4.0.0.0", reconnect: false, heartbeatSeconds: 3600 });
  await client.connect();
  return client;
}

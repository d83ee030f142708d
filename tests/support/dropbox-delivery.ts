import { createAccount, type Account } from "./auth-suite";
import { jsonApi } from "./json-api";
import type { TestServer } from "./test-server";

/** The Dropbox destination's secrets the receiver (storage-receivers.ts) accepts. */
const DROPBOX_SECRETS = { refreshToken: "dropbox-refresh-token", appKey: "dropbox-app-key", appSecret: "dropbox-app-secret" };

/**
 * A new owner's observation whose files go to a Dropbox destination of the owner's organization
 * (the server's DROPBOX_* URLs point at a receiver), with its observatory's key to upload them.
 */
export async function observationDeliveredToDropbox(server: TestServer, name: string) {
  const { must, createObservation, createOrganization } = jsonApi(() => server);
  const owner: Account = await createAccount(server);
  const organization = await createOrganization(owner);
  const updated = (await must(
    `/organizations/${organization.id}`,
    {
      method: "PUT",
      token: owner.token,
      json: { externalStorage: [{ kind: "dropbox", label: "Dropbox", settings: { folder: "/Telescope" }, secrets: DROPBOX_SECRETS }] },
    },
    200,
  )) as { externalStorage: Array<{ id: string }> };
  const storageDestinationId = updated.externalStorage[0]!.id;
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name, organizationId: organization.id } }, 201)) as { id: string };
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name } }, 201)) as { id: string };
  const { key } = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as {
    key: string;
  };
  const observation = await createObservation(owner, { name, projectId: project.id, observatoryId: observatory.id, storageDestinationId });
  return { owner, observation, key };
}

import { createAccount, type Account } from "./auth-suite";
import { jsonApi } from "./json-api";
import { createObservatoryKey } from "./observatory-keys";
import type { TestServer } from "./test-server";

/** Four new accounts, signed up at once. */
export const fourAccounts = async (server: TestServer) =>
  (await Promise.all(Array.from({ length: 4 }, () => createAccount(server)))) as [Account, Account, Account, Account];

/** An observatory and a project of `owner`'s, named as given, with `projectMember` a member (role member) of the project. */
export async function observingScope(server: TestServer, options: { owner: Account; observatory: string; project: string; projectMember: Account }) {
  const { must } = jsonApi(() => server);
  const { owner } = options;
  const observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: options.observatory } }, 201)) as { id: string }).id;
  const projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: options.project } }, 201)) as { id: string }).id;
  await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: options.projectMember.email, role: "member" } }, 201);
  return { observatoryId, projectId };
}

/**
 * The four sides of an observation's access around one observatory and one project: the `owner` of both; a `member` of
 * the project only, who reads its observations; a `viewer` who may only view the observatory; a `stranger` to both. `key`
 * is the observatory's plugin key.
 */
export async function observationCast(server: TestServer, names: { observatory: string; project: string }) {
  const { must, addObservatoryMember } = jsonApi(() => server);
  const [owner, member, viewer, stranger] = await fourAccounts(server);
  const { observatoryId, projectId } = await observingScope(server, { owner, projectMember: member, ...names });
  await addObservatoryMember(owner, observatoryId, viewer, { can_view: true });
  const key = await createObservatoryKey(must, owner, observatoryId);
  return { owner, member, viewer, stranger, observatoryId, projectId, key };
}

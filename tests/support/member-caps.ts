import { expect } from "vitest";
import { createAccount, expectProblem, type Account } from "./auth-suite";
import { invitationPathFor } from "./invitation-links";
import type { TestServer } from "./test-server";

/**
 * A scope (`base`: `/organizations/{id}`, `/observatories/{id}`, `/projects/{id}`) one place short of
 * its member cap: the next addition is 201, the one after 409 CONFLICT saying `refusal`, an
 * invitation's acceptance is refused the same way, nothing past the cap is stored, the member list
 * (`listed`, the user ids it shows, `extra` of them beside the counted members: an owner listed
 * apart) names every one, and the invitation still works once a member has left.
 */
export async function expectMemberCapHeld(options: {
  server: TestServer;
  owner: Account;
  base: string;
  cap: number;
  refusal: string;
  add: (person: Account) => Promise<Response>;
  grant?: Record<string, unknown>;
  stored: () => Promise<number>;
  listed: () => Promise<string[]>;
  extra: number;
}) {
  const { server, owner, base, cap, refusal } = options;
  const [last, beyond, invited] = [await createAccount(server), await createAccount(server), await createAccount(server)];
  expect((await options.add(last)).status).toBe(201);
  expect((await expectProblem(await options.add(beyond), 409, "CONFLICT")).detail).toBe(refusal);
  expect(await options.stored()).toBe(cap);
  const sent = await server.request(`${base}/invitations`, { method: "POST", token: owner.token, json: { email: invited.email, ...options.grant } });
  expect(sent.status).toBe(201);
  const token = (await invitationPathFor(server, invited.email)).split("/")[1]!;
  const accept = () => server.request("/api/v1/invitations/accept", { method: "POST", token: invited.token, json: { token } });
  expect((await expectProblem(await accept(), 409, "CONFLICT")).detail).toBe(refusal);
  expect(await options.stored()).toBe(cap);

  const listed = await options.listed();
  expect(listed).toHaveLength(cap + options.extra);
  expect(listed).toEqual(expect.arrayContaining([owner.id, last.id]));
  expect(listed.filter((id) => id === beyond.id || id === invited.id)).toEqual([]);

  expect((await server.request(`${base}/members/${last.id}`, { method: "DELETE", token: last.token })).status).toBe(204);
  expect((await accept()).status).toBe(200);
  expect(await options.stored()).toBe(cap);
}

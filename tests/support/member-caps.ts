import { expect } from "vitest";
import { createAccount, expectProblem, type Account } from "./auth-suite";
import { invitationPathFor } from "./invitation-links";
import { expectRefusal, type CallerAccount, type TestRuntime } from "./test-runtime";
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

/**
 * expectMemberCapHeld through the app router's caller, on a test runtime: `add` adds a person, `invite`
 * invites an email address, and `leave` is a member's leaving, as the caller of the scope's operations.
 */
export async function expectMemberCapHeldThroughCaller(options: {
  runtime: TestRuntime;
  owner: CallerAccount;
  cap: number;
  refusal: string;
  add: (person: CallerAccount) => Promise<unknown>;
  invite: (email: string) => Promise<unknown>;
  leave: (member: CallerAccount) => Promise<unknown>;
  stored: () => Promise<number>;
  listed: () => Promise<string[]>;
  extra: number;
}) {
  const { runtime, owner, cap, refusal } = options;
  const [last, beyond, invited] = [await runtime.signup(), await runtime.signup(), await runtime.signup()];
  await options.add(last);
  expect((await expectRefusal(options.add(beyond), 409, "CONFLICT")).message).toBe(refusal);
  expect(await options.stored()).toBe(cap);
  await options.invite(invited.email);
  const token = (await invitationPathFor(runtime, invited.email)).split("/")[1]!;
  const accept = () => invited.caller.invitations.accept({ token });
  expect((await expectRefusal(accept(), 409, "CONFLICT")).message).toBe(refusal);
  expect(await options.stored()).toBe(cap);

  const listed = await options.listed();
  expect(listed).toHaveLength(cap + options.extra);
  expect(listed).toEqual(expect.arrayContaining([owner.id, last.id]));
  expect(listed.filter((id) => id === beyond.id || id === invited.id)).toEqual([]);

  await options.leave(last);
  await accept();
  expect(await options.stored()).toBe(cap);
}

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "getting-started-admin@example.com", password: "getting started admin password" };
const PATH = "/api/v1/user/getting-started";
let server: TestServer;
let adminToken: string;
const sockets: PluginSocket[] = [];
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(async () => {
  for (const socket of sockets) socket.client.ws.close();
  await server?.stop();
});
const { must, createObservatory, createOrganization, addOrganizationMember, addObservatoryMember } = jsonApi(() => server);

interface GettingStarted {
  steps: Array<{ id: string; done: boolean }>;
  observatory: { id: string; name: string; canAdmin: boolean; hasKey?: boolean } | null;
}

const checklist = async (account: Account) => (await must(PATH, { token: account.token }, 200)) as GettingStarted;
/** The ids of the steps that are done, in the checklist's order. */
const doneSteps = async (account: Account) => (await checklist(account)).steps.filter((step) => step.done).map((step) => step.id);
const location = { latitude: 28.76, longitude: -17.88, elevation: 2396 };
const target = { name: "M 31", ra: 10.68, dec: 41.27, exposures: [{ filter: "L", exposureSeconds: 30, count: 1, binning: 1 }] };

async function connectPlugin(key: string) {
  const socket = await openPluginSocket(server.url, key);
  sockets.push(socket);
  expect(await socket.ask({ type: "hello", pluginVersion: "3.8.0.0" })).toMatchObject({ type: "ack" });
  return socket;
}

describeAuthSuite(() => server, { method: "GET", path: PATH, prepare: () => ({ path: PATH }), success: 200 });

describe("GET /api/v1/user/getting-started", () => {
  it("shows a new user every step to do, in order, and no observatory", async () => {
    const newcomer = await createAccount(server);
    expect(await checklist(newcomer)).toEqual({
      steps: ["join", "location", "plugin", "project", "observation"].map((id) => ({ id, done: false })),
      observatory: null,
    });
  });

  it("ticks each step as the user takes it: observatory, location, key, plugin connected, project, observation", async () => {
    const user = await createAccount(server);
    const observatory = await createObservatory(user, { name: "First Dome" });
    expect(await checklist(user)).toMatchObject({ observatory: { id: observatory.id, name: "First Dome", canAdmin: true, hasKey: false } });
    expect(await doneSteps(user)).toEqual(["join"]);

    await must(`/observatories/${observatory.id}`, { method: "PUT", token: user.token, json: { location } }, 200);
    expect(await doneSteps(user)).toEqual(["join", "location"]);

    const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: user.token, json: { name: "plugin" } }, 201)) as {
      key: string;
    };
    // A key alone does not tick the step: the plugin must have connected.
    expect(await checklist(user)).toMatchObject({ observatory: { hasKey: true } });
    expect(await doneSteps(user)).toEqual(["join", "location"]);
    const socket = await connectPlugin(key.key);
    expect(await doneSteps(user)).toEqual(["join", "location", "plugin"]);
    // Once connected it stays done: the plugin has been seen, even when it has gone away again.
    socket.client.ws.close();
    await socket.closed;
    expect(await doneSteps(user)).toEqual(["join", "location", "plugin"]);

    const project = (await must("/projects", { method: "POST", token: user.token, json: { name: "First Survey" } }, 201)) as { id: string };
    expect(await doneSteps(user)).toEqual(["join", "location", "plugin", "project"]);

    await must(
      "/observations",
      { method: "POST", token: user.token, json: { name: "First light", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
      201,
    );
    expect(await checklist(user)).toEqual({
      steps: ["join", "location", "plugin", "project", "observation"].map((id) => ({ id, done: true })),
      observatory: { id: observatory.id, name: "First Dome", canAdmin: true, hasKey: true },
    });
  });

  it("counts joining an organization, and an observatory shared with the user, as the first step", async () => {
    const owner = await createAccount(server);
    const joiner = await createAccount(server);
    const organization = await createOrganization(owner);
    await addOrganizationMember(owner, organization.id, joiner);
    expect(await checklist(joiner)).toMatchObject({ observatory: null });
    expect(await doneSteps(joiner)).toEqual(["join"]);

    const viewer = await createAccount(server);
    const shared = await createObservatory(owner, { name: "Shared Dome", location });
    await addObservatoryMember(owner, shared.id, viewer, { can_view: true, can_observe: true });
    // The observatory is someone else's to set up: its state shows, and the viewer is told it may not act (no key detail).
    expect(await checklist(viewer)).toMatchObject({ observatory: { id: shared.id, canAdmin: false } });
    expect((await checklist(viewer)).observatory).not.toHaveProperty("hasKey");
    expect(await doneSteps(viewer)).toEqual(["join", "location"]);
  });

  it("takes the steps of an observatory the user administers before one they only view, and the one furthest along among those", async () => {
    const owner = await createAccount(server);
    const user = await createAccount(server);
    const viewed = await createObservatory(owner, { name: "Viewed", location });
    await addObservatoryMember(owner, viewed.id, user, { can_view: true });
    const older = await createObservatory(user, { name: "Older, bare" });
    expect((await checklist(user)).observatory).toMatchObject({ id: older.id, canAdmin: true });
    expect(await doneSteps(user)).toEqual(["join"]);

    const located = await createObservatory(user, { name: "Newer, located", location });
    expect((await checklist(user)).observatory).toMatchObject({ id: located.id });
    expect(await doneSteps(user)).toEqual(["join", "location"]);

    // A connected observatory is further along than a located one.
    const key = (await must(`/observatories/${older.id}/api-keys`, { method: "POST", token: user.token, json: { name: "plugin" } }, 201)) as { key: string };
    await connectPlugin(key.key);
    expect((await checklist(user)).observatory).toMatchObject({ id: older.id });
    expect(await doneSteps(user)).toEqual(["join", "plugin"]);
  });

  it("ticks the project step for a member added to someone's project, and the observation step only for the user's own submission", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const observatory = await createObservatory(owner);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Their Survey" } }, 201)) as { id: string };
    await must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
    await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Theirs", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
      201,
    );
    expect(await doneSteps(member)).toEqual(["project"]);
  });

  it("follows a server admin's own memberships, not every observatory they could administer", async () => {
    await createObservatory(await createAccount(server), { name: "Somebody's", location });
    const admin = { id: "", email: ADMIN.email, password: ADMIN.password, token: adminToken };
    expect(await checklist(admin)).toMatchObject({ observatory: null });
    expect(await doneSteps(admin)).toEqual([]);
  });

  it("answers the same over tRPC (user.gettingStarted), and refuses a caller without credentials there too", async () => {
    const user = await createAccount(server);
    await createObservatory(user, { name: "Over tRPC" });
    const answer = await server.request("/trpc/user.gettingStarted", { token: user.token });
    expect(await trpcData(answer)).toEqual(await checklist(user));
    expect(await trpcErrorCode(await server.request("/trpc/user.gettingStarted"))).toBe("UNAUTHENTICATED");
    await expectProblem(await server.request(PATH), 401, "UNAUTHENTICATED");
  });
});

import { describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, trpcData } from "../support/json-api";
import { useReplicas } from "../support/replicas";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// Both servers cache for an hour (useReplicas), so a page that changes on B after a write through A
// was refreshed by the notice inTransaction sends, and one that changes at once on the writer by
// its own invalidation.
const ADMIN = { email: "page-cache-admin@example.com", password: "page cache admin password" };
const replicas = useReplicas(ADMIN);
const onA = jsonApi(() => replicas.serverA);
const onB = jsonApi(() => replicas.serverB);

interface Page {
  items: Array<{ id: string; status: string; estimatedSeconds: number }>;
  nextCursor: string | null;
}
const firstPage = async (server: TestServer, user: Account, query = "") =>
  (await jsonApi(() => server).must(`/observations${query}`, { token: user.token }, 200)) as Page;
const idsOf = (page: Page) => page.items.map((item) => item.id);

async function observingOwner() {
  const owner = await createAccount(replicas.serverA);
  const observatory = await onA.createObservatory(owner);
  const project = (await onA.must("/projects", { method: "POST", token: owner.token, json: { name: "Cached pages" } }, 201)) as { id: string };
  return { owner, observatory, project };
}

describe("the first page of observations, cached per process", () => {
  it("shows a write at once on the server that made it, and on the other once its notice arrives", async () => {
    const { owner, observatory, project } = await observingOwner();
    expect(idsOf(await firstPage(replicas.serverA, owner))).toEqual([]);
    expect(idsOf(await firstPage(replicas.serverB, owner))).toEqual([]);
    expect(idsOf(await firstPage(replicas.serverB, owner, "?status=cancelled"))).toEqual([]);

    const created = await onA.createObservation(owner, { projectId: project.id, observatoryId: observatory.id });
    expect(idsOf(await firstPage(replicas.serverA, owner))).toEqual([created.id]);
    const fromApp = await trpcData<Page>(await replicas.serverA.request("/trpc/observations.list", { token: owner.token }));
    expect(idsOf(fromApp)).toEqual([created.id]);
    await until("server B to list the new observation", async () => idsOf(await firstPage(replicas.serverB, owner)).includes(created.id));

    await onB.must(`/observations/${created.id}/cancel`, { method: "POST", token: owner.token, json: {} }, 200);
    expect((await firstPage(replicas.serverB, owner)).items[0]?.status).toBe("cancelled");
    expect(idsOf(await firstPage(replicas.serverB, owner, "?status=cancelled"))).toEqual([created.id]);
    await until("server A to show the cancel", async () => (await firstPage(replicas.serverA, owner)).items[0]?.status === "cancelled");
  });

  it("follows who may read: a project membership granted on one server shows the project's observations on the other", async () => {
    const { owner, observatory, project } = await observingOwner();
    const created = await onA.createObservation(owner, { projectId: project.id, observatoryId: observatory.id });
    const colleague = await createAccount(replicas.serverA);
    expect(idsOf(await firstPage(replicas.serverA, colleague))).toEqual([]);

    await onB.must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: colleague.email, role: "member" } }, 201);
    expect(idsOf(await firstPage(replicas.serverB, colleague))).toEqual([created.id]);
    await until("server A to list the project's observation for the new member", async () =>
      idsOf(await firstPage(replicas.serverA, colleague)).includes(created.id),
    );
  });

  it("follows the observatory's settings in its estimates", async () => {
    const { owner, observatory, project } = await observingOwner();
    await onA.createObservation(owner, { projectId: project.id, observatoryId: observatory.id });
    const before = (await firstPage(replicas.serverA, owner)).items[0]!.estimatedSeconds;

    await onB.must(
      `/observatories/${observatory.id}`,
      { method: "PUT", token: owner.token, json: { settings: { slewSeconds: 600, readoutSeconds: 60 } } },
      200,
    );
    const after = await until("server A to estimate with the new settings", async () => {
      const estimate = (await firstPage(replicas.serverA, owner)).items[0]!.estimatedSeconds;
      return estimate !== before ? estimate : undefined;
    });
    expect(after).toBeGreaterThan(before);
  });

  it("keeps each caller's page apart, and pages on past the first with a cursor", async () => {
    const { owner, observatory, project } = await observingOwner();
    const stranger = await createAccount(replicas.serverA);
    const ids = [];
    for (let index = 0; index < 3; index += 1) ids.push((await onA.createObservation(owner, { projectId: project.id, observatoryId: observatory.id })).id);
    const first = await firstPage(replicas.serverA, owner, "?limit=2");
    expect(first.items).toHaveLength(2);
    expect(idsOf(await firstPage(replicas.serverA, stranger, "?limit=2"))).toEqual([]);
    const second = await firstPage(replicas.serverA, owner, `?limit=2&cursor=${first.nextCursor}`);
    expect([...idsOf(first), ...idsOf(second)].sort()).toEqual(ids.sort());
  });
});

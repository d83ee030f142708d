import { randomUUID } from "node:crypto";
import { observationsCollection, observatoriesCollection } from "@meridian/db";
import { dispatchObservatory, observatoriesAwaitingDispatch } from "@meridian/domain/observations";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationCast } from "../support/observation-cast";
import { observationDocument } from "../support/observation-documents";
import { createObservatoryKey } from "../support/observatory-keys";
import { openPluginSocket } from "../support/plugin-socket";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "observatory-removal-admin@example.com", password: "observatory removal admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  // The worker runs: dispatch, crons and integrity scans are real.
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { scanSchedule: { quick: null, full: null } } }, 200);
});
afterAll(() => server?.stop());
const { must, call, createOrganization, addOrganizationMember, createObservatory, addObservatoryMember } = jsonApi(() => server);

interface Observation {
  id: string;
  status: string;
  statusReason: string | null;
}
type History = { items: Array<{ type: string; actorId: string | null; data: Record<string, unknown> }> };

const target = { name: "Mizar", ra: 200.98, dec: 54.93, exposures: [{ filter: "L", exposureSeconds: 10, count: 1, binning: 1 }] };
const remove = (observatoryId: string, token?: string) => server.request(`/observatories/${observatoryId}`, { method: "DELETE", token });
const statusOf = async (id: string, token: string) => ((await must(`/observations/${id}`, { token }, 200)) as Observation).status;
const listedIds = async (token: string) =>
  ((await must("/observatories?limit=200", { token }, 200)) as { items: Array<{ id: string }> }).items.map((item) => item.id);
const trpcQuery = async <T>(procedure: string, input: unknown, token: string) => {
  const response = await server.request(`/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
};

describeAuthSuite(() => server, {
  method: "DELETE",
  path: "/observatories/{id}",
  prepare: async (_server, _account, token) => {
    const observatory = (await must("/observatories", { method: "POST", token, json: { name: "Short-lived" } }, 201)) as { id: string };
    return { path: `/observatories/${observatory.id}` };
  },
  success: 204,
});

describe("DELETE /observatories/{id}: who may remove", () => {
  it("is the owner, can_manage_observatories of the owning organization (and its owner), or a server admin", async () => {
    const [owner, orgOwner, manager, orgMember, directAdmin, viewer, stranger] = (await Promise.all(
      Array.from({ length: 7 }, () => createAccount(server)),
    )) as [Account, Account, Account, Account, Account, Account, Account];
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, manager, { can_manage_observatories: true });
    await addOrganizationMember(orgOwner, organization.id, orgMember, { can_manage_members: true, can_manage_projects: true });
    const owned = async () => {
      const observatory = await createObservatory(orgOwner, { name: `Org scope ${randomUUID().slice(0, 6)}`, organizationId: organization.id });
      await addObservatoryMember(orgOwner, observatory.id, directAdmin, { can_admin: true });
      await addObservatoryMember(orgOwner, observatory.id, viewer, { can_view: true });
      return observatory.id;
    };

    const first = await owned();
    await expectProblem(await remove(first), 401, "UNAUTHENTICATED");
    await expectProblem(await remove(first, stranger.token), 404, "NOT_FOUND");
    // can_admin on the observatory is not enough, nor is managing the organization's members or projects.
    for (const refused of [viewer, directAdmin, orgMember]) await expectProblem(await remove(first, refused.token), 403, "FORBIDDEN");
    await must(`/observatories/${first}`, { token: viewer.token }, 200);
    await expectProblem(await remove(`obs_${randomUUID()}`, adminToken), 404, "NOT_FOUND");

    for (const allowed of [manager, orgOwner, { token: adminToken }]) {
      const id = allowed === manager ? first : await owned();
      expect((await remove(id, allowed.token)).status).toBe(204);
      await expectProblem(await server.request(`/observatories/${id}`, { token: orgOwner.token }), 404, "NOT_FOUND");
      // Gone for everyone, the remover too: a second removal finds nothing.
      await expectProblem(await remove(id, allowed.token), 404, "NOT_FOUND");
    }
    const mine = await createObservatory(owner);
    expect((await remove(mine.id, owner.token)).status).toBe(204);

    // A removed observatory no longer keeps its organization: with nothing else owned, the organization can go.
    await must(`/organizations/${organization.id}`, { method: "DELETE", token: orgOwner.token }, 204);
  });
});

describe("removing an observatory with each kind of observation", () => {
  let owner: Account;
  let member: Account;
  let viewer: Account;
  let stranger: Account;
  let observatoryId: string;
  let projectId: string;
  let key: string;
  const made: Record<"pending" | "paused" | "completed" | "cancelled" | "running", Observation> = {} as never;
  let fileId: string;
  let announcementId: string;
  let acknowledgedId: string;
  const bannerIds = async (account: Account) =>
    ((await must("/api/v1/user/motd/current", { token: account.token }, 200)) as { items: Array<{ id: string }> }).items.map((item) => item.id);

  beforeAll(async () => {
    ({ owner, member, viewer, stranger, observatoryId, projectId, key } = await observationCast(server, {
      observatory: "Doomed scope",
      project: "Doomed survey",
    }));
    const submit = async () =>
      (await must(
        "/observations",
        { method: "POST", token: owner.token, json: { name: `Obs ${randomUUID().slice(0, 6)}`, projectId, observatoryId, targets: [target] } },
        201,
      )) as Observation;
    const move = (id: string, status: string, token: string) => must(`/observations/${id}/status`, { method: "POST", token, json: { status } }, 200);
    for (const kind of ["pending", "paused", "completed", "cancelled", "running"] as const) made[kind] = await submit();
    await must(`/observations/${made.paused.id}/pause`, { method: "POST", token: owner.token }, 200);
    await move(made.completed.id, "assigned", owner.token);
    for (const status of ["in_progress", "acquisition_complete", "completed"]) await move(made.completed.id, status, key);
    await must(`/observations/${made.cancelled.id}/cancel`, { method: "POST", token: owner.token }, 200);
    await move(made.running.id, "assigned", owner.token);
    const upload = await server.request(`/observations/${made.completed.id}/files?filename=frame.fits`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/fits" },
      body: Buffer.alloc(64, 3),
    });
    expect(upload.status).toBe(201);
    fileId = ((await upload.json()) as { id: string }).id;
    const announcement = { title: "Dome work", message: "Closed on Friday.", severity: "info", deliveryType: "message" };
    announcementId = ((await must(`/observatories/${observatoryId}/motd`, { method: "POST", token: owner.token, json: announcement }, 201)) as { id: string })
      .id;
    const pending = (await must("/api/v1/user/motd/pending", { token: viewer.token }, 200)) as { items: Array<{ id: string }> };
    expect(pending.items.map((item) => item.id)).toContain(announcementId);
    // A second one that every recipient has acknowledged: it cannot be cancelled, and shows as a banner.
    acknowledgedId = ((await must(`/observatories/${observatoryId}/motd`, { method: "POST", token: owner.token, json: announcement }, 201)) as { id: string })
      .id;
    const recipients = `/observatories/${observatoryId}/motd/${acknowledgedId}/recipients`;
    const waiting = (await must(`${recipients}?status=pending`, { token: owner.token }, 200)) as { items: Array<{ userId: string }> };
    for (const { userId } of waiting.items) {
      const recipient = [member, viewer, stranger].find((account) => account.id === userId)!;
      await must(`/observatories/${observatoryId}/motd/${acknowledgedId}/acknowledge`, { method: "POST", token: recipient.token }, 200);
    }
    expect(await must(recipients, { token: owner.token }, 200)).toMatchObject({ counts: { pending: 0 } });
    expect(await bannerIds(viewer)).toContain(acknowledgedId);
  });

  it("is refused while an observation is assigned or in progress (409 OBSERVATORY_BUSY), changing nothing", async () => {
    await expectProblem(await remove(observatoryId, owner.token), 409, "OBSERVATORY_BUSY");
    await must(`/observations/${made.running.id}/status`, { method: "POST", token: key, json: { status: "in_progress" } }, 200);
    await expectProblem(await remove(observatoryId, adminToken), 409, "OBSERVATORY_BUSY");
    await must(`/observatories/${observatoryId}`, { token: owner.token }, 200);
    expect(await statusOf(made.pending.id, owner.token)).toBe("pending");
    expect(await statusOf(made.paused.id, owner.token)).toBe("paused");
    // Its key still works: the plugin reports the end of its observation.
    await must(`/observations/${made.running.id}/status`, { method: "POST", token: key, json: { status: "failed", reason: "Clouds" } }, 200);
  });

  it("cancels what waits there, keeps what ended, and takes the observatory out of every list and route", async () => {
    expect((await remove(observatoryId, owner.token)).status).toBe(204);
    for (const kind of ["pending", "paused"] as const) {
      const observation = (await must(`/observations/${made[kind].id}`, { token: owner.token }, 200)) as Observation;
      expect(observation).toMatchObject({ status: "cancelled", statusReason: "observatory removed" });
      const history = (await must(`/observations/${made[kind].id}/history`, { token: member.token }, 200)) as {
        items: Array<{ from: string; to: string; actor: { id: string }; reason: string }>;
      };
      expect(history.items.at(-1)).toMatchObject({ from: kind, to: "cancelled", actor: { id: owner.id }, reason: "observatory removed" });
    }
    expect(await statusOf(made.completed.id, owner.token)).toBe("completed");
    expect(await statusOf(made.cancelled.id, owner.token)).toBe("cancelled");
    expect(await statusOf(made.running.id, owner.token)).toBe("failed");

    for (const token of [owner.token, viewer.token, adminToken]) {
      await expectProblem(await server.request(`/observatories/${observatoryId}`, { token }), 404, "NOT_FOUND");
      expect(await listedIds(token)).not.toContain(observatoryId);
    }
    for (const path of ["members", "queue", "api-keys", "permissions/me", "motd"])
      await expectProblem(await server.request(`/observatories/${observatoryId}/${path}`, { token: owner.token }), 404, "NOT_FOUND");
    await expectProblem(
      await server.request(`/observatories/${observatoryId}`, { method: "PUT", token: owner.token, json: { name: "Back" } }),
      404,
      "NOT_FOUND",
    );
    const options = (await must("/api/v1/system/motd/target-options?kind=observatories&q=Doomed", { token: adminToken }, 200)) as {
      items: Array<{ id: string }>;
    };
    expect(options.items.map((item) => item.id)).not.toContain(observatoryId);
    // Nothing new goes there: neither a new observation nor a clone.
    const submitted = await call("/observations", { method: "POST", token: owner.token, json: { name: "Late", projectId, observatoryId, targets: [target] } });
    expect(submitted.status).toBe(404);
    await expectProblem(await server.request(`/observations/${made.completed.id}/clone`, { method: "POST", token: owner.token }), 409, "OBSERVATORY_REMOVED");
  });

  it("leaves its observations, their history and files, and its own history, readable to those who could read them", async () => {
    for (const reader of [owner, member, viewer]) {
      await must(`/observations/${made.completed.id}`, { token: reader.token }, 200);
      await must(`/observations/${made.completed.id}/history`, { token: reader.token }, 200);
      const files = (await must(`/observations/${made.completed.id}/files`, { token: reader.token }, 200)) as { items: Array<{ id: string }> };
      expect(files.items.map((file) => file.id)).toEqual([fileId]);
      const download = await server.request(`/files/${fileId}/download`, { token: reader.token });
      expect(download.status).toBe(200);
      expect((await download.arrayBuffer()).byteLength).toBe(64);
    }
    await expectProblem(await server.request(`/observations/${made.completed.id}`, { token: stranger.token }), 404, "NOT_FOUND");
    const listed = (await must(`/observations?observatoryId=${observatoryId}`, { token: viewer.token }, 200)) as { items: Array<{ id: string }> };
    expect(listed.items.map((item) => item.id).sort()).toEqual(
      Object.values(made)
        .map((observation) => observation.id)
        .sort(),
    );

    const history = (await must(`/observatories/${observatoryId}/history`, { token: viewer.token }, 200)) as History;
    expect(history.items[0]).toMatchObject({
      type: "removed",
      actorId: owner.id,
      data: { name: "Doomed scope", cancelledObservations: 2, revokedKeys: 1, cancelledAnnouncements: 1 },
    });
    await expectProblem(await server.request(`/observatories/${observatoryId}/history`, { token: stranger.token }), 404, "NOT_FOUND");
    // Its name, for the observations that still show it.
    const names = await trpcQuery<{ items: Array<{ id: string; name: string; removed: boolean }> }>(
      "observatories.names",
      { ids: [observatoryId] },
      viewer.token,
    );
    expect(names.items).toEqual([{ id: observatoryId, name: "Doomed scope", removed: true }]);
    expect((await trpcQuery<{ items: unknown[] }>("observatories.names", { ids: [observatoryId] }, stranger.token)).items).toEqual([]);
  });

  it("stops its keys, cancels its announcements and is in the audit log", async () => {
    await expectProblem(
      await server.request(`/observations/${made.completed.id}/files?filename=late.fits`, { method: "POST", token: key, body: "late" }),
      401,
      "UNAUTHENTICATED",
    );
    await expect(openPluginSocket(server.url, key)).rejects.toThrow(/401/);
    const managed = (await must("/api/v1/user/motd/managed?scope=observatory&limit=200", { token: adminToken }, 200)) as {
      items: Array<{ id: string; status: string; cancellationReason: string }>;
    };
    expect(managed.items.find((item) => item.id === announcementId)).toMatchObject({
      status: "cancelled",
      cancellationReason: "The observatory Doomed scope was removed.",
    });
    const pending = (await must("/api/v1/user/motd/pending", { token: viewer.token }, 200)) as { items: Array<{ id: string }> };
    expect(pending.items.map((item) => item.id)).not.toContain(announcementId);
    // The acknowledged one stays acknowledged but stops showing: no banner is left from an observatory that is gone.
    expect(managed.items.find((item) => item.id === acknowledgedId)).toMatchObject({ status: "acknowledged", expiresAt: expect.any(String) });
    expect(await bannerIds(viewer)).not.toContain(acknowledgedId);
    expect(await bannerIds(owner)).not.toContain(acknowledgedId);
    const audit = (await must(`/api/v1/admin/audit?targetId=${observatoryId}`, { token: adminToken }, 200)) as {
      items: Array<{ action: string; actorId: string; after: unknown }>;
    };
    expect(audit.items[0]).toMatchObject({ action: "observatory.removed", actorId: owner.id, after: { cancelledObservations: 2, revokedKeys: 1 } });
  });

  it("leaves its observations' references whole for a deep integrity scan", async () => {
    const started = (await must(
      "/api/v1/admin/integrity/scans",
      { method: "POST", token: adminToken, json: { kind: "full", collections: ["observations", "observatory_members", "files"], deepScan: true } },
      202,
    )) as { id: string };
    const scan = await until("the scan to end", async () => {
      const current = (await must(`/api/v1/admin/integrity/scans/${started.id}`, { token: adminToken }, 200)) as { status: string };
      return current.status === "completed" || current.status === "failed" ? current : undefined;
    });
    expect(scan.status).toBe("completed");
    const issues = (await must(`/api/v1/admin/integrity/scans/${started.id}/issues?limit=200`, { token: adminToken }, 200)) as {
      items: Array<{ documentId: string; code: string }>;
    };
    const ours = new Set([...Object.values(made).map((observation) => observation.id), fileId]);
    expect(issues.items.filter((issue) => ours.has(issue.documentId))).toEqual([]);
  });
});

describe("a removed observatory's plugin and dispatch", () => {
  it("closes the live plugin connection, and dispatch never assigns there again", async () => {
    const owner = await createAccount(server);
    const observatoryId = (await createObservatory(owner)).id;
    const socket = await openPluginSocket(server.url, await createObservatoryKey(must, owner, observatoryId));
    expect(await socket.ask({ type: "hello", pluginVersion: "3.0.0", systemInfo: {}, equipment: {} })).toMatchObject({ type: "ack" });
    await until("the observatory to be online", async () => {
      const observatory = (await must(`/observatories/${observatoryId}`, { token: owner.token }, 200)) as { connection: { online: boolean } };
      return observatory.connection.online;
    });
    expect((await remove(observatoryId, owner.token)).status).toBe(204);
    expect(await socket.closed).toBe(4401);

    // Even were it marked online with a pending observation (a document written around the API), it gets no assignment.
    const { deps } = server.server.runtime;
    await observatoriesCollection.update(deps.db, observatoryId, (doc) => ({ ...doc, connection: { ...doc.connection, online: true } }));
    const projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Stray" } }, 201)) as { id: string }).id;
    const stray = await observationsCollection.insert(deps.db, observationDocument({ projectId, observatoryId, ownerId: owner.id }));
    expect(await dispatchObservatory({ deps, observatoryId })).toBeNull();
    expect(await observatoriesAwaitingDispatch({ db: deps.db })).not.toContain(observatoryId);
    expect((await observationsCollection.get(deps.db, stray.id))?.doc.status).toBe("pending");
    const history = (await must(`/observatories/${observatoryId}/history`, { token: owner.token }, 200)) as History;
    expect(history.items.map((item) => item.type)).toContain("removed");
  });
});

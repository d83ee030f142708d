import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, loginSession, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { openWebSocket } from "../support/ws-client";

/*
 * Recipients are resolved when an announcement is created, among enabled accounts. An account
 * disabled afterwards can no longer sign in to acknowledge, so disabling it takes it out of the
 * running announcements it has not acknowledged, and the announcement it was the last one missing
 * from becomes acknowledged.
 */

const ADMIN = { email: "disabled-recipient-admin@example.com", password: "disabled recipient admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

interface Announcement {
  id: string;
  status: string;
  recipientCount: number;
  acknowledgedCount: number;
}
interface RecipientsView {
  items: Array<{ userId: string; status: string }>;
  counts: { total: number; acknowledged: number; pending: number };
}
interface ScopeStats {
  scope: string;
  active: number;
  acknowledged: number;
  cancelled: number;
  pendingAcknowledgments: number;
}

const announce = async (recipients: Account[]) =>
  (await must(
    "/api/v1/system/motd",
    {
      method: "POST",
      token: adminToken,
      json: {
        title: "Dome work",
        message: "The dome is closed tonight",
        severity: "info",
        deliveryType: "message",
        targets: { users: { ids: recipients.map((r) => r.id) } },
      },
    },
    201,
  )) as Announcement;
const acknowledge = (id: string, account: Account) => must(`/api/v1/system/motd/${id}/acknowledge`, { method: "POST", token: account.token }, 200);
const setDisabled = (account: Account, disabled: boolean) =>
  must(`/api/v1/admin/users/${account.id}`, { method: "PUT", token: adminToken, json: { disabled } }, 200) as Promise<{ disabled: boolean }>;
const listed = async (id: string) => {
  const items = (await must("/api/v1/system/motd?limit=200", { token: adminToken }, 200)).items as Announcement[];
  return items.find((item) => item.id === id);
};
const recipientsOf = async (id: string) => (await must(`/api/v1/system/motd/${id}/recipients?limit=200`, { token: adminToken }, 200)) as RecipientsView;
const systemStats = async () =>
  ((await must("/api/v1/user/motd/stats", { token: adminToken }, 200)).scopes as ScopeStats[]).find((row) => row.scope === "system") ?? {
    scope: "system",
    active: 0,
    acknowledged: 0,
    cancelled: 0,
    pendingAcknowledgments: 0,
  };
const pendingIds = async (token: string) => ((await must("/api/v1/user/motd/pending", { token }, 200)).items as Announcement[]).map((item) => item.id);

describe("an account disabled after an announcement was created", () => {
  it("leaves its recipients, and the announcement it was the last one missing from becomes acknowledged, in every view and to its senders", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const created = await announce([alice, bob]);
    expect(created).toMatchObject({ status: "active", recipientCount: 2, acknowledgedCount: 0 });
    await acknowledge(created.id, alice);
    expect(await listed(created.id)).toMatchObject({ status: "active", recipientCount: 2, acknowledgedCount: 1 });
    const before = await systemStats();
    const sender = await openWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${adminToken}` });

    try {
      expect(await setDisabled(bob, true)).toMatchObject({ disabled: true });
      // The senders hear the new counts, sent with the change.
      await sender.waitFor((message) => {
        const data = message.data as { id?: string; acknowledged?: number; pending?: number } | undefined;
        return message.type === "announcement.counts" && data?.id === created.id && data.acknowledged === 1 && data.pending === 0;
      }, "the counts without bob");
    } finally {
      await sender.close();
    }

    expect(await listed(created.id)).toMatchObject({ status: "acknowledged", recipientCount: 1, acknowledgedCount: 1 });
    const view = await recipientsOf(created.id);
    expect(view.counts).toMatchObject({ total: 1, acknowledged: 1, pending: 0 });
    expect(view.items.map((item) => item.userId)).toEqual([alice.id]);
    expect(await systemStats()).toMatchObject({
      active: before.active - 1,
      acknowledged: before.acknowledged + 1,
      pendingAcknowledgments: before.pendingAcknowledgments - 1,
    });
  });

  it("keeps the announcements it acknowledged and the ended ones, counts one fewer on an open one, and is added back to none when enabled again", async () => {
    const carol = await createAccount(server);
    const dave = await createAccount(server);
    const erin = await createAccount(server);
    const acknowledgedByDave = await announce([carol, dave, erin]);
    await acknowledge(acknowledgedByDave.id, dave);
    const cancelled = await announce([carol, dave]);
    await must(`/api/v1/system/motd/${cancelled.id}`, { method: "DELETE", token: adminToken, json: { reason: "Called off" } }, 200);
    const open = await announce([carol, dave, erin]);
    const before = await systemStats();

    await setDisabled(dave, true);
    expect(await listed(acknowledgedByDave.id)).toMatchObject({ status: "active", recipientCount: 3, acknowledgedCount: 1 });
    expect(await listed(cancelled.id)).toMatchObject({ status: "cancelled", recipientCount: 2, acknowledgedCount: 0 });
    expect(await listed(open.id)).toMatchObject({ status: "active", recipientCount: 2, acknowledgedCount: 0 });
    expect((await recipientsOf(open.id)).counts).toMatchObject({ total: 2, acknowledged: 0, pending: 2 });
    expect((await recipientsOf(open.id)).items.map((item) => item.userId)).not.toContain(dave.id);
    expect(await systemStats()).toMatchObject({
      active: before.active,
      cancelled: before.cancelled,
      pendingAcknowledgments: before.pendingAcknowledgments - 1,
    });

    // Enabled again, dave receives what is created from now on, not what went out while disabled.
    await setDisabled(dave, false);
    const daveToken = (await loginSession(server, dave)).token;
    const later = await announce([dave]);
    const pending = await pendingIds(daveToken);
    expect(pending).toContain(later.id);
    expect(pending).not.toContain(open.id);
    expect(await listed(open.id)).toMatchObject({ recipientCount: 2 });

    await acknowledge(open.id, carol);
    await acknowledge(open.id, erin);
    expect(await listed(open.id)).toMatchObject({ status: "acknowledged", recipientCount: 2, acknowledgedCount: 2 });
  });
});

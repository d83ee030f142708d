import type { ObservatoryClient } from "@meridian/observatory-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { dispatchJobsDone } from "../support/dispatch-jobs";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { connectQuietPlugin, observingNetwork } from "../support/observing-network";
import { startSmtpCapture } from "../support/smtp-capture";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";
import { openWebSocket, type OpenClient } from "../support/ws-client";

/**
 * A submission to a free observatory (connected, dispatch on and safe, nothing waiting, nothing
 * under way) that may start now is assigned in its own transaction (issue 26, point 4): no
 * dispatch job stands between the submission and the plugin's `assign`. Every other submission
 * waits for the dispatch job as before, and the rules that hold for dispatch hold here: one
 * observation under way per observatory, each assigned once, its history, events and notices whole.
 */

const ADMIN = { email: "dispatch-at-submission-admin@example.com", password: "dispatch at submission admin password" };
const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };

let server: TestServer;
let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
const closers: Array<() => Promise<unknown>> = [];
const { must } = jsonApi(() => server);

beforeAll(async () => {
  capture = await startSmtpCapture();
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", SMTP_URL: capture.url, PUBLIC_URL: "https://meridian.example.org" }));
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await server?.stop();
  await capture?.stop();
});

interface Created {
  id: string;
  status: string;
}

/** An owner's observatory and project, with a quiet plugin connected unless asked otherwise; `assigned` lists what it was sent. */
async function network(options: { connected?: boolean } = {}) {
  const owner = await createAccount(server);
  const { observatory, project, key } = await observingNetwork(must, owner);
  const assigned: string[] = [];
  const sent: unknown[] = [];
  let plugin: ObservatoryClient | undefined;
  if (options.connected !== false) {
    plugin = await connectQuietPlugin(server.url, key.key);
    closers.push(() => plugin!.close());
    plugin.on("assign", (observation: { id: string }) => {
      assigned.push(observation.id);
      sent.push(observation);
    });
    // The dispatch the plugin's hello queued holds the observatory while it runs: a submission then would wait for it.
    await dispatchJobsDone(server);
  }
  const submit = async (name: string, extra: Record<string, unknown> = {}) =>
    (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name, projectId: project.id, observatoryId: observatory.id, targets: [target], ...extra } },
      201,
    )) as Created;
  return { owner, observatory, project, plugin, assigned, sent, submit };
}

const historyOf = async (owner: Account, id: string) =>
  (
    (await must(`/observations/${id}/history`, { token: owner.token }, 200)) as {
      items: Array<{ from: string | null; to: string; actor: { kind: string; id: string } }>;
    }
  ).items.map((entry) => [entry.from, entry.to, entry.actor.kind, entry.actor.id]);

const statusOf = async (owner: Account, id: string) => ((await must(`/observations/${id}`, { token: owner.token }, 200)) as Created).status;

const inAnHour = () => ({ fixedTimeStart: new Date(Date.now() + 3_600_000).toISOString(), fixedTimeEnd: new Date(Date.now() + 7_200_000).toISOString() });

describe("dispatch at submission", () => {
  it("assigns a submission to a free observatory in its own transaction: answer, plugin, history, events and email agree", async () => {
    const { owner, observatory, assigned, sent, submit } = await network();
    const watcher = await openWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${owner.token}` });
    closers.push(() => watcher.close());
    const created = await submit("At once");

    expect(created.status).toBe("assigned");
    await until("the plugin's assign", async () => assigned.includes(created.id));
    // Sent before the write answered, it carries the row's creation time all the same.
    expect(sent).toEqual([created]);
    expect(await historyOf(owner, created.id)).toEqual([
      [null, "pending", "user", owner.id],
      ["pending", "assigned", "system", "dispatch"],
    ]);
    const moves = (client: OpenClient) =>
      client.messages
        .filter((message) => message.type === "observation.status_changed" && (message.data as { id: string }).id === created.id)
        .map((message) => [(message.data as { previousStatus: string | null }).previousStatus, (message.data as { status: string }).status]);
    await until("both moves on the owner's socket", async () => moves(watcher).length === 2);
    expect(moves(watcher)).toEqual([
      [null, "pending"],
      ["pending", "assigned"],
    ]);
    const subject = `At once: assigned`;
    await capture.waitFor((all) => all.some((mail) => mail.subject === subject && mail.to.includes(owner.email.toLowerCase())));

    // The dispatch the plugin's hello queued, and any other, find the observatory busy: nothing is sent twice.
    await dispatchJobsDone(server);
    expect(assigned).toEqual([created.id]);
    expect(capture.messages.filter((mail) => mail.subject === subject && mail.to.includes(owner.email.toLowerCase()))).toHaveLength(1);
    const queue = (await must(`/observatories/${observatory.id}/queue`, { token: owner.token }, 200)) as { items: unknown[] };
    expect(queue.items).toEqual([]);
  });

  it("leaves a submission pending for the dispatch job when its observatory is offline, and the job assigns it once the plugin connects", async () => {
    const { owner, observatory, submit } = await network({ connected: false });
    const created = await submit("Offline");
    expect(created.status).toBe("pending");
    const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "late" } }, 201)) as {
      key: string;
    };
    const plugin = await connectQuietPlugin(server.url, key.key);
    closers.push(() => plugin.close());
    await until("the assignment after the plugin's hello", async () => (await statusOf(owner, created.id)) === "assigned");
    expect((await historyOf(owner, created.id)).at(-1)).toEqual(["pending", "assigned", "system", "dispatch"]);
  });

  it("leaves pending what may not start yet, and what arrives while another waits, which the dispatch job then assigns in plan order", async () => {
    const { owner, assigned, submit } = await network();
    const later = await submit("Later", inAnHour());
    expect(later.status).toBe("pending");
    const now = await submit("Now");
    // Another observation waits there: the plan across both is the dispatch job's, not the submission's.
    expect(now.status).toBe("pending");
    await until("the dispatch job's assign", async () => assigned.includes(now.id));
    await dispatchJobsDone(server);
    expect(assigned).toEqual([now.id]);
    expect(await statusOf(owner, later.id)).toBe("pending");
  });

  it("leaves pending a submission to an observatory with an observation under way, or one that reports itself unsafe", async () => {
    const busy = await network();
    const first = await busy.submit("First");
    expect(first.status).toBe("assigned");
    const second = await busy.submit("Second");
    expect(second.status).toBe("pending");
    await dispatchJobsDone(server);
    expect(busy.assigned).toEqual([first.id]);
    expect(await statusOf(busy.owner, second.id)).toBe("pending");

    const unsafe = await network();
    await unsafe.plugin!.safety(false, "dome closed");
    const held = await unsafe.submit("Held");
    expect(held.status).toBe("pending");
    await dispatchJobsDone(server);
    expect(unsafe.assigned).toEqual([]);
  });

  it("assigns exactly one of many submissions racing to a free observatory, each at most once", async () => {
    const { owner, assigned, submit } = await network();
    const created = await Promise.all(Array.from({ length: 8 }, (_, index) => submit(`Race ${index}`)));
    await until("an assign", async () => assigned.length > 0);
    await dispatchJobsDone(server);
    const statuses = await Promise.all(created.map((observation) => statusOf(owner, observation.id)));
    expect(statuses.filter((status) => status !== "pending")).toHaveLength(1);
    expect(assigned).toHaveLength(1);
    const winner = created[statuses.findIndex((status) => status === "assigned")]!;
    expect(assigned).toEqual([winner.id]);
    for (const observation of created) {
      const moves = (await historyOf(owner, observation.id)).filter(([, to]) => to === "assigned");
      expect(moves).toHaveLength(observation.id === winner.id ? 1 : 0);
    }
  });
});

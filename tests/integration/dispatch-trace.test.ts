import diagnosticsChannel from "node:diagnostics_channel";
import { DISPATCH_TRACE_CHANNEL, type DispatchMark, type DispatchStage } from "@meridian/domain/observations";
import type { ObservatoryClient } from "@meridian/observatory-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem } from "../support/auth-suite";
import { dispatchJobsLeft } from "../support/dispatch-jobs";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { connectQuietPlugin, observingNetwork } from "../support/observing-network";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * The dispatch trace that bench/dispatch-latency.ts reads its stages from (issue 26, point 4): a
 * submission's way to its observatory's `assign`, marked once per stage, in the order it happens,
 * each mark naming what the benchmark matches it by.
 */

const ADMIN = { email: "dispatch-trace-admin@example.com", password: "dispatch trace admin password" };
const target = { name: "M 31", ra: 10.6847, dec: 41.269, epoch: "J2000", exposures: [{ filter: "R", exposureSeconds: 1, count: 1, binning: 1 }] };
const STAGES: DispatchStage[] = ["request started", "request committed", "job started", "dispatch committed", "event heard", "assign sent"];

let server: TestServer;
const marks: DispatchMark[] = [];
const record = (mark: unknown) => void marks.push(mark as DispatchMark);
const plugins: ObservatoryClient[] = [];
const { must } = jsonApi(() => server);

beforeAll(async () => {
  // Server and worker in this process, as `pnpm start` and the benchmark's server run them: the channel is the process's own.
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  diagnosticsChannel.subscribe(DISPATCH_TRACE_CHANNEL, record);
});
afterAll(async () => {
  diagnosticsChannel.unsubscribe(DISPATCH_TRACE_CHANNEL, record);
  for (const plugin of plugins) await plugin.close();
  await server?.stop();
});

const ofObservatory = (observatoryId: string) => marks.filter((mark) => mark.observatoryId === observatoryId);

/** An owner's observatory with a plugin connected, and a project to submit into. */
async function connectedObservatory() {
  const owner = await createAccount(server);
  const { observatory, project, key } = await observingNetwork(must, owner);
  const plugin = await connectQuietPlugin(server.url, key.key);
  plugins.push(plugin);
  const assigned: string[] = [];
  plugin.on("assign", (observation: { id: string }) => assigned.push(observation.id));
  const submit = async (name: string, extra: Record<string, unknown> = {}) =>
    (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name, projectId: project.id, observatoryId: observatory.id, targets: [target], ...extra } },
      201,
    )) as { id: string; status: string };
  return { owner, observatory, project, assigned, submit };
}

describe("the dispatch trace", () => {
  it("marks a submission assigned in its own transaction: its dispatch commits with it, and no job stands between", async () => {
    const { observatory, assigned, submit } = await connectedObservatory();
    // The plugin's hello queued a dispatch that holds the observatory while it runs.
    await until(
      "the hello's dispatch to end",
      async () => ofObservatory(observatory.id).some((mark) => mark.stage === "job started") && (await dispatchJobsLeft(server)) === 0,
    );
    const created = await submit("At once");
    expect(created.status).toBe("assigned");
    await until("the plugin to be assigned the observation", async () => assigned.includes(created.id));
    const sent = await until("the assign's mark", async () => marks.find((mark) => mark.stage === "assign sent" && mark.observationId === created.id));
    const mine = marks.filter((mark) => mark.observationId === created.id).map((mark) => mark.stage);
    expect([...mine].sort()).toEqual(["assign sent", "dispatch committed", "request committed"]);
    const committed = marks.find((mark) => mark.stage === "request committed" && mark.observationId === created.id)!;
    const dispatched = marks.find((mark) => mark.stage === "dispatch committed" && mark.observationId === created.id)!;
    const heard = marks.find((mark) => mark.stage === "event heard" && mark.eventId === sent.eventId)!;
    const begun = ofObservatory(observatory.id).findLast((mark) => mark.stage === "request started" && mark.at <= committed.at)!;
    expect(ofObservatory(observatory.id).filter((mark) => mark.stage === "job started" && mark.at >= begun.at && mark.at <= dispatched.at)).toEqual([]);
    const inOrder = (times: number[]) => expect(times).toEqual([...times].sort((a, b) => a - b));
    inOrder([begun.at, committed.at, dispatched.at]);
    // The event's NOTIFY comes on the hub's own connection, and may be read, and `assign` sent, before the COMMIT's
    // answer reaches the submission: only the start orders both sides.
    inOrder([begun.at, heard.at, sent.at]);
  });

  it("marks each stage of a submission's way through a dispatch job to its observatory's assign once, in order, with what the benchmark matches", async () => {
    const { observatory, assigned, submit } = await connectedObservatory();
    // One waits already (its window opens in an hour): a submission's plan across both is the dispatch job's.
    await submit("Later", { fixedTimeStart: new Date(Date.now() + 3_600_000).toISOString(), fixedTimeEnd: new Date(Date.now() + 7_200_000).toISOString() });
    const created = await submit("Traced");
    expect(created.status).toBe("pending");
    await until("the plugin to be assigned the observation", async () => assigned.includes(created.id));
    const sent = await until("the assign's mark", async () => marks.find((mark) => mark.stage === "assign sent" && mark.observationId === created.id));

    const observatoryMarks = ofObservatory(observatory.id);
    expect(observatoryMarks.filter((mark) => mark.stage === "request started")).toHaveLength(2);
    expect(
      marks
        .filter((mark) => mark.observationId === created.id)
        .map((mark) => mark.stage)
        .sort(),
    ).toEqual(["assign sent", "dispatch committed", "request committed"]);
    const heard = marks.find((mark) => mark.stage === "event heard" && mark.eventId === sent.eventId);
    expect(heard, "the NOTIFY of the assign's event is marked by its id").toBeDefined();
    const dispatched = observatoryMarks.find((mark) => mark.stage === "dispatch committed" && mark.observationId === created.id);
    const commitMark = observatoryMarks.find((mark) => mark.stage === "request committed" && mark.observationId === created.id)!;
    const stageMarks = [
      observatoryMarks.findLast((mark) => mark.stage === "request started" && mark.at <= commitMark.at),
      commitMark,
      // The plugin's hello and the first submission queued dispatches too: the job that assigned it is the last to start before its commit.
      observatoryMarks.findLast((mark) => mark.stage === "job started" && mark.at <= dispatched!.at),
      dispatched,
      heard,
      sent,
    ];
    expect(stageMarks.map((mark) => mark?.stage)).toEqual(STAGES);
    const [started, committed, picked, , eventHeard, assignSent] = stageMarks.map((mark) => mark!.at) as number[];
    const inOrder = (times: number[]) => expect(times).toEqual([...times].sort((a, b) => a - b));
    // The job can only start once the request's transaction has committed, but the request marks its commit when it reads the
    // answer, and an in-process worker woken by the NOTIFY may start first (CI saw the job 2.4 ms ahead): each follows the start.
    inOrder([started!, committed!, dispatched!.at]);
    inOrder([started!, picked!, dispatched!.at]);
    // The NOTIFY comes on the hub's own connection, and may be read before the dispatch's COMMIT answer is (the
    // benchmark's notify stage can read slightly negative): both follow the job's start, and the hub's marks their order.
    inOrder([picked!, eventHeard!, assignSent!]);
    // Wall-clock milliseconds, sub-millisecond, comparable with another process's (the benchmark's client).
    expect(Math.abs(started! - Date.now())).toBeLessThan(60_000);
  });

  it("marks no commit for a submission that is refused", async () => {
    const { owner, observatory, project } = await connectedObservatory();
    await must(`/projects/${project.id}`, { method: "PUT", token: owner.token, json: { status: "paused" } }, 200);
    const before = marks.length;
    const refused = await server.request("/observations", {
      method: "POST",
      token: owner.token,
      json: { name: "Refused", projectId: project.id, observatoryId: observatory.id, targets: [target] },
    });
    await expectProblem(refused, 409, "PROJECT_NOT_ACTIVE");
    const after = marks.slice(before).map((mark) => mark.stage);
    expect(after).toEqual(["request started"]);
  });
});

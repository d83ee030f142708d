import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createObservatoryAs, expectRefusal, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";

/**
 * Candidate observatories (contract: "Network scheduling"), through the typed caller (the tRPC twin of POST, PUT and clone
 * of /observations): which submissions are refused, who may read one with candidates and who may act on it, and what a
 * clone and an edit make of its candidates. Dispatch at the candidates, with plugins connected, is observation-candidates.test.ts.
 */

const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };

let runtime: TestRuntime;
let owner: CallerAccount;
let projectId: string;
/** The owner's three observatories. */
let [a, b, c] = ["", "", ""];

beforeAll(async () => {
  runtime = await startTestRuntime();
  owner = await runtime.signup();
  [a, b, c] = await Promise.all([createObservatoryAs(owner), createObservatoryAs(owner), createObservatoryAs(owner)]).then((made) => made.map((o) => o.id));
  projectId = (await owner.caller.projects.create({ name: "Network survey" })).id;
});
afterAll(async () => {
  await runtime?.stop();
});

/** Where a call's input was refused: the typed caller refuses it before the domain (BAD_REQUEST, REST's 400 VALIDATION_FAILED) with the schema's issues. */
async function refusedAt(call: Promise<unknown>): Promise<string[]> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, "the input should have been refused").toBeInstanceOf(Error);
  expect((error as { code?: string }).code).toBe("BAD_REQUEST");
  const issues = ((error as Error).cause as { issues?: Array<{ path: PropertyKey[] }> } | undefined)?.issues ?? [];
  return issues.map((issue) => issue.path.map(String).join("."));
}

const submit = (as: CallerAccount, where: { observatoryId?: string; candidateObservatoryIds?: string[] }, name = "Anywhere") =>
  as.caller.observations.create({ name, projectId, targets: [target], ...where });

describe("submitting with candidates", () => {
  it("stores the candidates in their order, and observatoryId reads null while it waits; one observatory reads as its own candidate", async () => {
    const several = await submit(owner, { candidateObservatoryIds: [b, a] });
    expect(several).toMatchObject({ status: "pending", observatoryId: null, candidateObservatoryIds: [b, a] });
    expect(await owner.caller.observations.get({ id: several.id })).toMatchObject({ observatoryId: null, candidateObservatoryIds: [b, a] });
    const single = await submit(owner, { observatoryId: a });
    expect(single).toMatchObject({ observatoryId: a, candidateObservatoryIds: [a] });
  });

  it("refuses both, neither, one id, 21 ids and a repeated id at the field (REST's 400 VALIDATION_FAILED)", async () => {
    const many = Array.from({ length: 21 }, (_, index) => `oby_${index}`);
    const cases: Array<[{ observatoryId?: string; candidateObservatoryIds?: string[] }, string]> = [
      [{ observatoryId: a, candidateObservatoryIds: [a, b] }, "candidateObservatoryIds"],
      [{}, "observatoryId"],
      [{ candidateObservatoryIds: [a] }, "candidateObservatoryIds"],
      [{ candidateObservatoryIds: many }, "candidateObservatoryIds"],
      [{ candidateObservatoryIds: [a, b, a] }, "candidateObservatoryIds.2"],
    ];
    for (const [where, path] of cases) {
      expect(await refusedAt(submit(owner, where, "Refused")), JSON.stringify(where)).toContain(path);
    }
    const { items } = await owner.caller.observations.list({ projectId, q: "Refused" });
    expect(items).toEqual([]);
  });

  it("needs can_observe on each candidate: 403 FORBIDDEN when one is only viewed, and nothing is stored", async () => {
    const other = await runtime.signup();
    const theirs = (await createObservatoryAs(other)).id;
    await other.caller.observatories.addUser({ id: theirs, email: owner.email, permissions: { can_view: true } });
    await expectRefusal(submit(owner, { candidateObservatoryIds: [a, theirs] }, "Refused at theirs"), 403, "FORBIDDEN");
    expect((await owner.caller.observations.list({ q: "Refused at theirs" })).items).toEqual([]);
    await other.caller.observatories.updateUser({ id: theirs, userId: owner.id, permissions: { can_view: true, can_observe: true } });
    expect(await submit(owner, { candidateObservatoryIds: [a, theirs] }, "Allowed at theirs")).toMatchObject({ candidateObservatoryIds: [a, theirs] });
  });
});

describe("readers and operators of an observation with candidates", () => {
  it("can_view on any candidate reads it, in the list filtered by that candidate too; a stranger is told it does not exist", async () => {
    const observation = await submit(owner, { candidateObservatoryIds: [a, b] }, "Read at b");
    const viewer = await runtime.signup();
    await owner.caller.observatories.addUser({ id: b, email: viewer.email, permissions: { can_view: true } });
    expect(await viewer.caller.observations.get({ id: observation.id })).toMatchObject({ id: observation.id, candidateObservatoryIds: [a, b] });
    const atB = await viewer.caller.observations.list({ observatoryId: b });
    expect(atB.items.map((item) => item.id)).toContain(observation.id);
    const atA = await owner.caller.observations.list({ observatoryId: a });
    expect(atA.items.map((item) => item.id)).toContain(observation.id);
    const atC = await owner.caller.observations.list({ observatoryId: c });
    expect(atC.items.map((item) => item.id)).not.toContain(observation.id);

    const stranger = await runtime.signup();
    await expectRefusal(stranger.caller.observations.get({ id: observation.id }), 404, "NOT_FOUND");
    expect((await stranger.caller.observations.list({})).items).toEqual([]);
  });

  it("an operator of a candidate may not act on it while it waits at none: only its owner may", async () => {
    const observation = await submit(owner, { candidateObservatoryIds: [a, b] }, "Owner's alone");
    const operator = await runtime.signup();
    await owner.caller.observatories.addUser({ id: a, email: operator.email, permissions: { can_operate: true } });
    await expectRefusal(operator.caller.observations.cancel({ id: observation.id }), 403, "FORBIDDEN");
    await expectRefusal(operator.caller.observations.update({ id: observation.id, update: { priority: 9 } }), 403, "FORBIDDEN");
    expect(await owner.caller.observations.update({ id: observation.id, update: { priority: 9 } })).toMatchObject({ priority: 9 });
  });
});

describe("clone and edit", () => {
  it("a clone keeps the candidates, or takes those its body names, judged as a creation's", async () => {
    const source = await submit(owner, { candidateObservatoryIds: [a, b] }, "Cloned");
    const clone = await owner.caller.observations.clone({ id: source.id, overrides: {} });
    expect(clone).toMatchObject({ status: "pending", observatoryId: null, candidateObservatoryIds: [a, b] });
    const moved = await owner.caller.observations.clone({ id: source.id, overrides: { candidateObservatoryIds: [c, b] } });
    expect(moved).toMatchObject({ observatoryId: null, candidateObservatoryIds: [c, b] });
    const single = await owner.caller.observations.clone({ id: source.id, overrides: { observatoryId: c } });
    expect(single).toMatchObject({ observatoryId: c, candidateObservatoryIds: [c] });
    const both = owner.caller.observations.clone({ id: source.id, overrides: { observatoryId: c, candidateObservatoryIds: [a, b] } });
    expect(await refusedAt(both)).toContain("overrides.candidateObservatoryIds");
    expect(await refusedAt(owner.caller.observations.clone({ id: source.id, overrides: { candidateObservatoryIds: [a, a] } }))).toContain(
      "overrides.candidateObservatoryIds.1",
    );
  });

  it("an edit while it waits replaces where it may run, either way; both at once is 400", async () => {
    const observation = await submit(owner, { observatoryId: a }, "Edited");
    const widened = await owner.caller.observations.update({ id: observation.id, update: { candidateObservatoryIds: [a, b, c] } });
    expect(widened).toMatchObject({ observatoryId: null, candidateObservatoryIds: [a, b, c] });
    await owner.caller.observations.pause({ id: observation.id });
    const narrowed = await owner.caller.observations.update({ id: observation.id, update: { observatoryId: b } });
    expect(narrowed).toMatchObject({ status: "paused", observatoryId: b, candidateObservatoryIds: [b] });
    const both = owner.caller.observations.update({ id: observation.id, update: { observatoryId: a, candidateObservatoryIds: [a, b] } });
    expect(await refusedAt(both)).toContain("update.candidateObservatoryIds");
    expect(await refusedAt(owner.caller.observations.update({ id: observation.id, update: { candidateObservatoryIds: [b] } }))).toContain(
      "update.candidateObservatoryIds",
    );

    const other = await runtime.signup();
    const theirs = (await createObservatoryAs(other)).id;
    await other.caller.observatories.addUser({ id: theirs, email: owner.email, permissions: { can_view: true } });
    await expectRefusal(owner.caller.observations.update({ id: observation.id, update: { candidateObservatoryIds: [a, theirs] } }), 403, "FORBIDDEN");
    expect(await owner.caller.observations.get({ id: observation.id })).toMatchObject({ observatoryId: b, candidateObservatoryIds: [b] });
  });

  it("a clone is refused at a candidate it may not observe at (403), one removed (404), and a source whose candidate was removed (409)", async () => {
    const other = await runtime.signup();
    const theirs = (await createObservatoryAs(other)).id;
    await other.caller.observatories.addUser({ id: theirs, email: owner.email, permissions: { can_view: true, can_observe: true } });
    const source = await submit(owner, { candidateObservatoryIds: [a, theirs] }, "Cloned where it may not");
    // Named by the body: judged as a creation judges it.
    const viewed = await runtime.signup();
    const onlyViewed = (await createObservatoryAs(viewed)).id;
    await viewed.caller.observatories.addUser({ id: onlyViewed, email: owner.email, permissions: { can_view: true } });
    await expectRefusal(owner.caller.observations.clone({ id: source.id, overrides: { candidateObservatoryIds: [a, onlyViewed] } }), 403, "FORBIDDEN");
    // Kept from the source: can_observe on each of them still.
    await other.caller.observatories.updateUser({ id: theirs, userId: owner.id, permissions: { can_view: true, can_observe: false } });
    await expectRefusal(owner.caller.observations.clone({ id: source.id, overrides: {} }), 403, "FORBIDDEN");

    const [x, y] = await Promise.all([createObservatoryAs(owner), createObservatoryAs(owner)]).then(([one, two]) => [one.id, two.id] as const);
    const waiting = await submit(owner, { candidateObservatoryIds: [x, y] }, "Cloned after a removal");
    await owner.caller.observatories.remove({ id: x });
    await expectRefusal(owner.caller.observations.clone({ id: waiting.id, overrides: {} }), 409, "OBSERVATORY_REMOVED");
    await expectRefusal(owner.caller.observations.clone({ id: waiting.id, overrides: { candidateObservatoryIds: [x, a] } }), 404, "NOT_FOUND");
    // Named anew without the removed one, it is cloned.
    expect(await owner.caller.observations.clone({ id: waiting.id, overrides: { candidateObservatoryIds: [y, a] } })).toMatchObject({
      candidateObservatoryIds: [y, a],
    });
  });
});

describe("forecasts", () => {
  it("forecasts one with candidates, stored or drafted, at whichever of them would start it first", async () => {
    const waiting = await submit(owner, { candidateObservatoryIds: [a, b] }, "Forecast");
    // No location anywhere: every candidate could start it now, while the plan assumes them connected.
    expect((await owner.caller.observations.forecast({ id: waiting.id })).expectedStart).not.toBeNull();
    const drafted = await owner.caller.observations.forecastDraft({ name: "Draft", projectId, targets: [target], candidateObservatoryIds: [b, c] });
    expect(drafted.expectedStart).not.toBeNull();
    expect(drafted.estimatedSeconds).toBeGreaterThan(0);
  });
});

describe("removing a candidate", () => {
  it("leaves it waiting for the others, and cancels it with the last of them", async () => {
    const [x, y] = await Promise.all([createObservatoryAs(owner), createObservatoryAs(owner)]).then(([one, two]) => [one.id, two.id] as const);
    const observation = await submit(owner, { candidateObservatoryIds: [x, y] }, "Outlives one");
    await owner.caller.observatories.remove({ id: x });
    expect(await owner.caller.observations.get({ id: observation.id })).toMatchObject({ status: "pending", candidateObservatoryIds: [x, y] });
    await owner.caller.observatories.remove({ id: y });
    expect(await owner.caller.observations.get({ id: observation.id })).toMatchObject({ status: "cancelled", statusReason: "observatory removed" });
  });
});

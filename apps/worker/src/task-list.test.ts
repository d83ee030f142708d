import { registeredJobList } from "@meridian/domain/job-registry";
import { crontabOf, defineJob, type Deps } from "@meridian/domain/platform";
import type { JobHelpers } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTaskList } from "./task-list";

/** Deps that fail loudly if a task touches them: a bad payload must be refused before any work. */
const untouchableDeps = new Proxy({} as Deps, {
  get(_target, property) {
    throw new Error(`deps.${String(property)} was used`);
  },
});
const helpers = { logger: { debug: () => undefined } } as unknown as JobHelpers;
/** graphile-worker's helpers at attempt `attempts` of `max`. */
const attempt = (attempts: number, max: number) => ({ ...helpers, job: { attempts, max_attempts: max, locked_by: "w" } }) as unknown as JobHelpers;

const taskOf = (job: ReturnType<typeof defineJob>, deps: Deps = untouchableDeps) => buildTaskList({ deps }, [job])[job.name]!;

describe("a job's task", () => {
  it("hands the parsed payload to the job's run", async () => {
    const seen: unknown[] = [];
    const demo = defineJob({ name: "demo", payload: z.object({ id: z.string() }), run: async (payload) => void seen.push(payload) });
    await taskOf(demo)({ id: "a", extra: 1 }, helpers);
    expect(seen).toEqual([{ id: "a" }]);
  });

  it("rejects a payload that does not match, without running the job", async () => {
    let ran = false;
    const demo = defineJob({ name: "demo", payload: z.object({ id: z.string() }), run: async () => void (ran = true) });
    for (const payload of [undefined, null, 42, {}, { id: 7 }, [{ id: "a" }]]) {
      await expect(taskOf(demo)(payload as never, helpers)).rejects.toThrow("invalid payload for demo");
    }
    expect(ran).toBe(false);
  });

  it("runs the job's afterLastAttempt once, when its last attempt throws, and throws on every attempt", async () => {
    const ended: Array<{ id: string; reason: string }> = [];
    const demo = defineJob({
      name: "demo",
      payload: z.object({ id: z.string() }),
      maxAttempts: 3,
      run: async () => {
        throw new Error("the disk is full");
      },
      afterLastAttempt: async ({ id }, { reason }) => void ended.push({ id, reason }),
    });
    for (const attempts of [1, 2]) {
      await expect(taskOf(demo)({ id: "a" }, attempt(attempts, 3))).rejects.toThrow("the disk is full");
      expect(ended).toEqual([]);
    }
    await expect(taskOf(demo)({ id: "a" }, attempt(3, 3))).rejects.toThrow("the disk is full");
    expect(ended).toEqual([{ id: "a", reason: "the disk is full" }]);
  });

  it("runs no afterLastAttempt when the last attempt succeeds", async () => {
    let ended = 0;
    const demo = defineJob({ name: "demo", payload: z.object({}), run: async () => undefined, afterLastAttempt: async () => void (ended += 1) });
    await taskOf(demo)({}, attempt(3, 3));
    expect(ended).toBe(0);
  });
});

describe("task list and crontab", () => {
  it("has one task per registered job, including send_email", () => {
    const names = registeredJobList.map((job) => job.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(buildTaskList({ deps: untouchableDeps })).sort()).toEqual([...names].sort());
    expect(names).toContain("send_email");
  });

  it("makes a task of every job it is given, and a crontab line of every schedule", () => {
    const hourly = defineJob({ name: "demo_hourly", payload: z.unknown(), schedule: "15 * * * *", run: async () => undefined });
    const queued = defineJob({ name: "demo_queued", payload: z.object({}), run: async () => undefined });
    expect(Object.keys(buildTaskList({ deps: untouchableDeps }, [hourly, queued])).sort()).toEqual(["demo_hourly", "demo_queued"]);
    expect(crontabOf([hourly, queued])).toBe("15 * * * * demo_hourly");
  });

  it("send_email refuses a malformed payload before touching the outbox or the mail transport", async () => {
    const sendEmail = buildTaskList({ deps: untouchableDeps }).send_email!;
    for (const payload of [{}, { outboxId: "" }, { outboxId: 5 }, { outbox: "eml_1" }]) {
      await expect(sendEmail(payload as never, helpers)).rejects.toThrow("invalid payload for send_email");
    }
  });
});

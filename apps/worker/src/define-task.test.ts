import type { Deps } from "@meridian/domain/platform";
import type { JobHelpers } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTask } from "./define-task";
import { buildTaskList, tasks } from "./task-list";

/** Deps that fail loudly if a task touches them: a bad payload must be refused before any work. */
const untouchableDeps = new Proxy({} as Deps, {
  get(_target, property) {
    throw new Error(`deps.${String(property)} was used`);
  },
});
const helpers = { logger: { debug: () => undefined } } as unknown as JobHelpers;

describe("defineTask", () => {
  it("hands the parsed payload to the handler", async () => {
    const seen: unknown[] = [];
    const task = defineTask("demo", z.object({ id: z.string() }), async (payload) => {
      seen.push(payload);
    }).create({ deps: untouchableDeps });
    await task({ id: "a", extra: 1 }, helpers);
    expect(seen).toEqual([{ id: "a" }]);
  });

  it("rejects a payload that does not match, without running the handler", async () => {
    let ran = false;
    const task = defineTask("demo", z.object({ id: z.string() }), async () => {
      ran = true;
    }).create({ deps: untouchableDeps });
    for (const payload of [undefined, null, 42, {}, { id: 7 }, [{ id: "a" }]]) {
      await expect(task(payload as never, helpers)).rejects.toThrow("invalid payload for demo");
    }
    expect(ran).toBe(false);
  });
});

describe("task list", () => {
  it("has one uniquely named task each, including send_email", () => {
    const names = tasks.map((task) => task.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(buildTaskList({ deps: untouchableDeps })).sort()).toEqual([...names].sort());
    expect(names).toContain("send_email");
  });

  it("send_email refuses a malformed payload before touching the outbox or the mail transport", async () => {
    const sendEmail = buildTaskList({ deps: untouchableDeps }).send_email!;
    for (const payload of [{}, { outboxId: "" }, { outboxId: 5 }, { outbox: "eml_1" }]) {
      await expect(sendEmail(payload as never, helpers)).rejects.toThrow("invalid payload for send_email");
    }
  });
});

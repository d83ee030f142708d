import { describe, expect, it } from "vitest";
import { AppError } from "../../platform/errors";
import { ANNOUNCEMENT_TRANSITIONS, assertTransition, canTransition, statusesMovingTo } from "./status";

describe("announcement status transitions", () => {
  it("moves an active announcement to acknowledged, expired or cancelled, and nothing else ever", () => {
    const all = Object.keys(ANNOUNCEMENT_TRANSITIONS) as Array<keyof typeof ANNOUNCEMENT_TRANSITIONS>;
    const allowed = all.flatMap((from) => all.filter((to) => canTransition({ from, to })).map((to) => `${from}→${to}`));
    expect(allowed).toEqual(["active→acknowledged", "active→expired", "active→cancelled"]);
  });

  it("refuses any other move with 409 INVALID_TRANSITION, saying what was asked", () => {
    expect(() => assertTransition({ from: "active", to: "cancelled" })).not.toThrow();
    const error = (() => {
      try {
        assertTransition({ from: "expired", to: "cancelled" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "INVALID_TRANSITION", status: 409, message: "An announcement that is expired cannot be cancelled" });
    expect(() => assertTransition({ from: "cancelled", to: "active" })).toThrow("cannot become active");
  });

  it("gives set-based updates the statuses each move may start from", () => {
    expect(statusesMovingTo("expired")).toEqual(["active"]);
    expect(statusesMovingTo("active")).toEqual([]);
  });
});

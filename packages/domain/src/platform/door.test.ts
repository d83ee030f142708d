import { describe, expect, it } from "vitest";
import { defineDoor } from "./door";

describe("defineDoor", () => {
  it("fails loudly with its own words until filled", () => {
    const door = defineDoor<{ ping(): string }>("pings are not plugged in");
    expect(() => door.get()).toThrow("pings are not plugged in");
  });

  it("answers with what filled it, the last filling winning", () => {
    const door = defineDoor<{ ping(): string }>("pings are not plugged in");
    door.fill({ ping: () => "first" });
    door.fill({ ping: () => "second" });
    expect(door.get().ping()).toBe("second");
  });
});

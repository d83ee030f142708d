import { describe, expect, it } from "vitest";
import { diffLines } from "./labels";

describe("an integrity fix as a diff", () => {
  it("shows a frame's analysis queued again as an addition naming the file", () => {
    expect(diffLines([{ analyse: "files", id: "fil_1" }])).toEqual([{ sign: "+", text: "files: analysis of fil_1 queued again" }]);
  });
});

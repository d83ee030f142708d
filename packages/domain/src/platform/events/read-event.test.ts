import { describe, expect, it } from "vitest";
import { readRealtimeNotice, realtimeNoticeBody } from "./read-event";

describe("realtime notices", () => {
  it("carry the event after its id when it fits, and the id alone when it does not", () => {
    const small = { type: "assign", data: { n: 1 }, observatoryIds: ["obs_1"] };
    const body = realtimeNoticeBody(small);
    expect(readRealtimeNotice(`42 ${body}`)).toEqual({
      id: 42,
      event: { type: "assign", data: { n: 1 }, userIds: [], observatoryIds: ["obs_1"], announcementId: null },
    });
    expect(realtimeNoticeBody({ type: "assign", data: { padding: "x".repeat(8_000) } })).toBeNull();
    expect(readRealtimeNotice("42")).toEqual({ id: 42 });
  });

  it("read a payload that is not a notice as nothing, rather than throwing in the LISTEN callback", () => {
    expect(readRealtimeNotice("not a notice")).toBeUndefined();
    expect(readRealtimeNotice("42 {not json")).toBeUndefined();
  });
});

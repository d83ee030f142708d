import { describe, expect, it } from "vitest";
import { lowerFirst, reasonInWords, type ReasonContext } from "./reason-words";

/** Times as the observatory's clock would show them: here the UTC hour and minute. */
const context: ReasonContext = {
  when: (iso) => iso.slice(11, 16),
  twilight: "astronomical",
  limits: { minAltitude: 30, maxAirmass: null, moonDistance: null },
};

describe("a reason in words", () => {
  it("says a run that fits now would not finish, what it would outlast and when, and when it next fits whole", () => {
    expect(reasonInWords({ code: "WOULD_NOT_FINISH", limit: "darkness", at: "2026-11-29T04:58:00.000Z", until: "2026-11-29T22:10:00.000Z" }, context)).toBe(
      "Would not finish before darkness (astronomical) ends at 04:58; it next fits whole at 22:10",
    );
    expect(reasonInWords({ code: "WOULD_NOT_FINISH", limit: "altitude", at: "2026-11-29T04:51:00.000Z", until: "2026-11-29T21:30:00.000Z" }, context)).toBe(
      "Would not finish before its target sinks below 30° at 04:51; it next fits whole at 21:30",
    );
    expect(reasonInWords({ code: "WOULD_NOT_FINISH", limit: "window", at: "2026-11-29T05:00:00.000Z", until: null }, context)).toBe(
      "Would not finish before its time window ends at 05:00; no start in the coming week lets it finish",
    );
    expect(
      reasonInWords(
        { code: "WOULD_NOT_FINISH", limit: "airmass", at: "2026-11-29T03:00:00.000Z", until: null },
        { ...context, limits: { minAltitude: 30, maxAirmass: 1.5, moonDistance: null } },
      ),
    ).toBe("Would not finish before its target passes airmass 1.5 at 03:00; no start in the coming week lets it finish");
  });

  it("says a target never rises above its minimum altitude from the site, with the highest it gets", () => {
    const never = { code: "TARGET_NOT_VISIBLE" as const, until: null, highestAltitude: 20.8 };
    expect(lowerFirst(reasonInWords(never, context))).toBe("never rises above 30° from this site (highest 21°)");
    expect(reasonInWords({ ...never, highestAltitude: -13.2 }, context)).toBe("Never rises above 30° from this site (highest −13°)");
    const airmass = { ...context, limits: { minAltitude: 30, maxAirmass: 1.2, moonDistance: null } };
    expect(reasonInWords({ ...never, highestAltitude: 45 }, airmass)).toBe("Never gets below airmass 1.2 from this site (highest 45°)");
  });

  it("says an observation asks for a filter the observatory's plugin does not report", () => {
    expect(reasonInWords({ code: "FILTER_MISSING", until: null }, context)).toBe("It asks for a filter this observatory's plugin does not report");
  });

  it("says the network plan starts it later here, or runs it at another observatory", () => {
    expect(reasonInWords({ code: "PLANNED_LATER", until: "2026-11-29T22:10:00.000Z" }, context)).toBe("The network plan starts it here at 22:10");
    expect(reasonInWords({ code: "PLANNED_ELSEWHERE", until: "2026-11-29T23:05:00.000Z", observatoryId: "obs_b" }, context)).toBe(
      "The network plan runs it at another observatory from 23:05",
    );
  });

  it("says a time window lies wholly in daylight", () => {
    expect(reasonInWords({ code: "NOT_DARK", until: null, windowInDaylight: true }, context)).toBe(
      "Its time window lies wholly in daylight (no astronomical darkness in it)",
    );
  });
});

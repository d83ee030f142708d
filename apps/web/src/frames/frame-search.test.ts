import { describe, expect, it } from "vitest";
import { emptyFrameSearch, frameSearchInput, frameSearchOf, frameSearchParams, parseRadius } from "./frame-search";

describe("a frame search in the URL", () => {
  it("reads back what it wrote: a shared link runs the same search", () => {
    const view = {
      ...emptyFrameSearch,
      target: "M 31",
      ra: "00h 42m 44.33s",
      dec: "+41° 16′ 07.5″",
      radius: "1.5",
      unit: "deg" as const,
      filter: "Ha",
      from: "2026-11-01",
      to: "2026-11-02",
      grade: "accepted" as const,
      observatoryId: "obs1",
      projectId: "prj1",
    };
    const params = frameSearchParams(view);
    expect(frameSearchOf(new URLSearchParams(params.toString()))).toEqual(view);
  });

  it("leaves out a radius without a position, and ignores days and grades it cannot read", () => {
    expect(frameSearchParams({ ...emptyFrameSearch, radius: "5", filter: " L " }).toString()).toBe("filter=L");
    const read = frameSearchOf(new URLSearchParams("from=yesterday&to=2026-13-45&grade=great&unit=furlong"));
    expect(read).toEqual(emptyFrameSearch);
  });
});

describe("the search's API input", () => {
  it("turns sexagesimal coordinates and arcminutes into degrees, and UTC days into instants with the last day included", () => {
    const { input, errors } = frameSearchInput({
      ...emptyFrameSearch,
      ra: "00:42:44.3",
      dec: "-05:23:28",
      radius: "30",
      unit: "arcmin",
      filter: "Ha",
      from: "2026-11-01",
      to: "2026-11-02",
      grade: "rejected",
      observatoryId: "obs1",
      projectId: "prj1",
    });
    expect(errors).toEqual({});
    expect(input.ra).toBeCloseTo(10.68458, 5);
    expect(input.dec).toBeCloseTo(-5.39111, 5);
    expect(input).toMatchObject({
      radius: 0.5,
      filter: "Ha",
      from: "2026-11-01T00:00:00.000Z",
      to: "2026-11-03T00:00:00.000Z",
      grade: "rejected",
      observatoryId: "obs1",
      projectId: "prj1",
    });
  });

  it("searches by the filters alone without a position, and names every field that is wrong", () => {
    expect(frameSearchInput({ ...emptyFrameSearch, filter: "V" })).toEqual({ input: { filter: "V" }, errors: {} });
    const { errors } = frameSearchInput({ ...emptyFrameSearch, ra: "25:00:00", dec: "", radius: "11", unit: "deg", from: "2026-11-05", to: "2026-11-01" });
    expect(errors).toEqual({
      ra: "RA must be less than 24h.",
      dec: "Dec is required.",
      radius: "Radius must be at most 10° (600′).",
      to: "The last day must be on or after the first.",
    });
  });

  it("bounds the radius at 10° in either unit, above 0, and says so in words", () => {
    expect(parseRadius("600", "arcmin")).toEqual({ ok: true, degrees: 10 });
    expect(parseRadius("10", "deg")).toEqual({ ok: true, degrees: 10 });
    expect(parseRadius("0,5", "deg")).toEqual({ ok: true, degrees: 0.5 });
    expect(parseRadius("601", "arcmin")).toEqual({ ok: false, message: "Radius must be at most 10° (600′)." });
    expect(parseRadius("0", "arcmin")).toEqual({ ok: false, message: "Radius must be more than 0." });
    expect(parseRadius("-1", "deg")).toEqual({ ok: false, message: "Radius must be a number, such as 30 or 0.5." });
    expect(parseRadius(" ", "deg")).toEqual({ ok: false, message: "Enter a radius around the position, at most 10° (600′)." });
  });
});

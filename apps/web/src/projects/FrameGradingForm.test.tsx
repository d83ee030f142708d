// @vitest-environment happy-dom
import { DEFAULT_FRAME_GRADING, type FrameGrading } from "@meridian/rules/frames";
import { act, fireEvent, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ProblemError } from "../lib/errors";
import { renderInApp, textOf } from "../test-support/render";
import { FrameGradingForm } from "./FrameGradingForm";

/** Types into a field as React hears it: the whole value at once. */
const type = (input: HTMLInputElement, text: string) => fireEvent.change(input, { target: { value: text } });
const click = (element: HTMLElement) => fireEvent.click(element);

function form(options: { grading?: FrameGrading; canManage?: boolean } = {}) {
  const saves: Array<Partial<FrameGrading>> = [];
  const props = {
    grading: options.grading ?? DEFAULT_FRAME_GRADING,
    canManage: options.canManage ?? true,
    busy: false,
    saved: false,
    error: null as unknown,
    onSave: (change: Partial<FrameGrading>) => saves.push(change),
  };
  const { container, rerender } = renderInApp(<FrameGradingForm {...props} />);
  return {
    saves,
    container,
    field: (label: string) => screen.getByLabelText<HTMLInputElement>(label),
    // As pressing Enter or the submit button sends it, the browser's checks included.
    send: () => act(() => screen.getByRole<HTMLFormElement>("form", { name: "Frame grading" }).requestSubmit()),
    messageOf: (input: HTMLInputElement) => textOf(document.getElementById(input.getAttribute("aria-describedby") ?? "")),
    rerender: (change: Partial<typeof props>) => rerender(<FrameGradingForm {...props} {...change} />),
  };
}

describe("a project's frame grading", () => {
  it("shows each check on with its limit or off, and tells that saving grades the frames again", () => {
    const { field, container } = form();
    expect(field("Pointing offset").checked).toBe(true);
    expect(field("Largest offset (arcminutes)").value).toBe("10");
    expect(field("Star count").checked).toBe(true);
    expect(field("Fewest stars").value).toBe("10");
    expect(field("Sharpness (FWHM)").checked).toBe(false);
    expect(() => field("Largest FWHM (arcseconds)")).toThrow();
    expect(field("Round stars (eccentricity)").checked).toBe(false);
    expect(field("Repeat rejected exposures").checked).toBe(false);
    expect(textOf(container)).toContain("Saving grades the project's analysed frames again");
    const save = [...container.querySelectorAll("button")].find((button) => textOf(button) === "Save grading")!;
    expect(save.disabled).toBe(true);
  });

  it("saves only what changed: a check switched off as null, one switched on with its limit, the repeat", () => {
    const { field, send, saves } = form();
    click(field("Pointing offset"));
    click(field("Sharpness (FWHM)"));
    type(field("Largest FWHM (arcseconds)"), "3.5");
    click(field("Repeat rejected exposures"));
    send();
    expect(saves).toEqual([{ maxOffsetArcmin: null, maxFwhmArcsec: 3.5, repeatRejected: true }]);
  });

  it("switches a check back on with the limit it had", () => {
    const { field, send, saves } = form({ grading: { ...DEFAULT_FRAME_GRADING, maxEccentricity: 0.5 } });
    click(field("Round stars (eccentricity)"));
    click(field("Round stars (eccentricity)"));
    expect(field("Largest eccentricity").value).toBe("0.5");
    type(field("Fewest stars"), "25");
    send();
    expect(saves).toEqual([{ minStars: 25 }]);
  });

  it("refuses limits out of the API's bounds, beside their fields, and sends nothing", () => {
    const { field, send, saves, messageOf } = form();
    type(field("Fewest stars"), "2.5");
    expect(messageOf(field("Fewest stars"))).toBe("Give the fewest stars as a whole number from 0 to 1,000,000.");
    expect(field("Fewest stars").getAttribute("aria-invalid")).toBe("true");
    click(field("Round stars (eccentricity)"));
    // Switched on and left empty: said once the form is sent.
    expect(messageOf(field("Largest eccentricity"))).toBe("From 0 (round) to 1 (a line). Off unless changed.");
    send();
    expect(messageOf(field("Largest eccentricity"))).toBe("Give the largest eccentricity: a number from 0 (round) to 1 (a line).");
    type(field("Largest eccentricity"), "1.5");
    type(field("Largest offset (arcminutes)"), "0");
    send();
    expect(messageOf(field("Largest offset (arcminutes)"))).toBe("Give the largest offset in arcminutes: a number more than 0, at most 10,800.");
    expect(saves).toEqual([]);
    expect(document.activeElement).toBe(field("Largest offset (arcminutes)"));
  });

  it("shows the API's field errors beside their fields while the field still says what was sent", () => {
    const { field, send, saves, messageOf, rerender, container } = form();
    type(field("Largest offset (arcminutes)"), "20");
    send();
    expect(saves).toEqual([{ maxOffsetArcmin: 20 }]);
    const refused = new ProblemError(400, "VALIDATION_FAILED", "Please check the highlighted fields.", [
      { path: "update.frameGrading.maxOffsetArcmin", message: "must be at most what this server allows" },
    ]);
    rerender({ error: refused });
    expect(messageOf(field("Largest offset (arcminutes)"))).toBe("Must be at most what this server allows");
    expect(container.querySelector('[role="alert"]')).toBeNull();
    type(field("Largest offset (arcminutes)"), "15");
    expect(messageOf(field("Largest offset (arcminutes)"))).toBe("More than 0, at most 10,800. 10 unless changed.");
    // A refusal no field shows is said atop the form.
    rerender({ error: new ProblemError(403, "FORBIDDEN", "Only the owner and project admins change a project.") });
    expect(textOf(container.querySelector('[role="alert"]'))).toBe("Only the owner and project admins change a project.");
  });

  it("is read-only for who may not manage the project", () => {
    const { field, container } = form({ canManage: false });
    expect(field("Pointing offset").disabled).toBe(true);
    expect(field("Largest offset (arcminutes)").disabled).toBe(true);
    expect(field("Repeat rejected exposures").disabled).toBe(true);
    expect([...container.querySelectorAll("button")].map(textOf)).toEqual([]);
    expect(textOf(container)).toContain("Only the owner and project admins change these.");
  });
});

// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { startApi } from "../../test-support/api";
import { descriptionOf } from "../../test-support/render";
import { renderWizard, wizardApi, wizardObservatory } from "./wizard-test-support";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

const SIDING_SPRING = wizardObservatory("oby_sso", "Siding Spring", { timeZone: "Australia/Sydney", settings: { slewSeconds: 60, readoutSeconds: 5 } });
const PICO = wizardObservatory("oby_pico", "Pico", { timeZone: "America/Sao_Paulo" });

/** The wizard at Siding Spring, its first step filled and a target placed on the second. */
async function openWizard() {
  api = await startApi(wizardApi([SIDING_SPRING, PICO]));
  const { user, next, router } = renderWizard();
  const fill = async (label: string | RegExp, text: string) => {
    const field = screen.getByLabelText(label);
    await user.clear(field);
    await user.type(field, text);
  };
  await screen.findByRole("heading", { level: 2, name: /^Step 1 of 5/ });
  await waitFor(() => expect(screen.getAllByRole("option", { name: "Siding Spring" }).length).toBeGreaterThan(0));
  await fill(/^Name/, "Window");
  await user.selectOptions(screen.getByLabelText(/^Project/), "prj_1");
  await user.selectOptions(screen.getByLabelText(/^Observatory/), "oby_sso");
  await next(2);
  // The position first: a name left with an empty position would be looked up in the catalog.
  await fill("Right ascension (RA)", "10:45:03.6");
  await fill("Declination (Dec)", "-59:41:04");
  await user.type(screen.getByRole("combobox", { name: "Target name" }), "Eta Carinae");
  await user.keyboard("{Escape}");
  return { user, next, fill, router };
}

/** An element's text as it reads, whitespace runs made one space. */
const textOf = (element: HTMLElement) => (element.textContent ?? "").replace(/\s+/g, " ");

describe("the submission wizard's times", () => {
  it("takes a window on the observatory's clocks, names the zone beside each field, keeps the clock times for another observatory, and sends UTC", async () => {
    const { user, next, fill } = await openWizard();
    await fill("Exposure seconds", "30");
    await next(3);
    await user.click(screen.getByRole("radio", { name: /^Fixed time/ }));
    expect(screen.getByText("In the observatory's time zone, Australia/Sydney.")).toBeTruthy();
    await fill("Window start", "2031-01-02T21:00");
    await fill("Window end", "2031-07-03T02:00");
    await waitFor(() => expect(descriptionOf(screen.getByLabelText("Window start"))).toBe("Not before this time (required). UTC+11"));
    await waitFor(() => expect(descriptionOf(screen.getByLabelText("Window end"))).toBe("Not after this time (optional). UTC+10"));
    await fill("Window end", "2031-01-03T02:00");
    await waitFor(() => expect(descriptionOf(screen.getByLabelText("Window end"))).toBe("Not after this time (optional). UTC+11"));
    await next(4);
    await next(5);
    const review = () => screen.getByRole("region", { name: "Scheduling" });
    await waitFor(() => expect(textOf(review())).toContain("not before Jan 2, 2031, 21:00 UTC+11, not after Jan 3, 2031, 02:00 UTC+11"));

    // Another observatory keeps the clock times typed, now on its clocks and named so.
    const stepList = screen.getByRole("list", { name: "Steps" });
    await user.click(within(stepList).getByRole("button", { name: "1. Observation" }));
    await user.selectOptions(screen.getByLabelText(/^Observatory/), "oby_pico");
    await user.click(within(stepList).getByRole("button", { name: "3. Scheduling" }));
    expect(screen.getByText("In the observatory's time zone, America/Sao_Paulo.")).toBeTruthy();
    expect((screen.getByLabelText("Window start") as HTMLInputElement).value).toBe("2031-01-02T21:00");
    expect(descriptionOf(screen.getByLabelText("Window start"))).toBe("Not before this time (required). UTC-3");
    await user.click(within(stepList).getByRole("button", { name: "5. Review" }));
    await waitFor(() => expect(textOf(review())).toContain("not before Jan 2, 2031, 21:00 UTC-3, not after Jan 3, 2031, 02:00 UTC-3"));

    await user.click(within(stepList).getByRole("button", { name: "1. Observation" }));
    await user.selectOptions(screen.getByLabelText(/^Observatory/), "oby_sso");
    await user.click(within(stepList).getByRole("button", { name: "5. Review" }));
    await waitFor(() => expect(textOf(review())).toContain("not before Jan 2, 2031, 21:00 UTC+11, not after Jan 3, 2031, 02:00 UTC+11"));
    await user.click(screen.getByRole("button", { name: "Submit observation" }));
    await screen.findByText("Observation page");
    // 21:00 and 02:00 at Siding Spring (UTC+11) are 10:00 and 15:00 UTC.
    expect(api!.calls("observations.create")[0]).toMatchObject({
      observatoryId: "oby_sso",
      type: "fixed_time",
      fixedTimeStart: "2031-01-02T10:00:00.000Z",
      fixedTimeEnd: "2031-01-02T15:00:00.000Z",
    });
  });

  it("checks a monitoring cadence as it is typed, sends it with its end in UTC, and estimates by the observatory's settings", async () => {
    const { user, next, fill } = await openWizard();
    await fill("Exposure seconds", "30");
    await fill(/^Count/, "4");
    await next(3);
    await user.click(screen.getByRole("radio", { name: /^Monitoring/ }));
    const interval = screen.getByLabelText("Repeat every (minutes)") as HTMLInputElement;
    expect(interval.value).toBe("60");
    await fill("Repeat every (minutes)", "0");
    await screen.findByText("Interval minutes must be at least 1.");
    await fill("Repeat every (minutes)", "90");
    await fill("Until", "2031-03-01T06:00");
    await waitFor(() => expect(descriptionOf(screen.getByLabelText("Until"))).toBe("Optional; in the observatory's time zone, Australia/Sydney. UTC+11"));
    await fill("At most (runs)", "3");
    await waitFor(() => expect(interval.getAttribute("aria-invalid")).toBeNull());
    await next(4);
    await next(5);
    await waitFor(() =>
      expect(textOf(screen.getByRole("region", { name: "Scheduling" }))).toContain("every 90 minutes, until Mar 1, 2031, 06:00 UTC+11, at most 3 runs"),
    );
    // 60 s slew + 4 × (30 s + 5 s readout) = 200 s.
    await within(screen.getByRole("region", { name: "Estimate" })).findByText("3 min 20 s");
    await user.click(screen.getByRole("button", { name: "Submit observation" }));
    await screen.findByText("Observation page");
    // 06:00 at Siding Spring, still on summer time (UTC+11).
    expect(api!.calls("observations.create")[0]).toMatchObject({
      type: "monitoring",
      monitoring: { intervalMinutes: 90, until: "2031-02-28T19:00:00.000Z", maxRuns: 3 },
    });
  });
});

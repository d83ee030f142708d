// @vitest-environment happy-dom
import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { ObservationCleanupCard } from "./ObservationCleanupCard";

const JOB = { id: "job-1", kind: "observation_cleanup", status: "completed", progress: { stage: "files", done: 1, total: 1 } } as const;

describe("the observation data cleanup", () => {
  it("previews what goes, asks for a typed confirmation, then deletes and says what went", async () => {
    const summary = { observations: 1, files: 0, storageObjects: 0 };
    const api = await startApi({
      "cleanup.observations": (input) => (input.dryRun ? summary : { jobId: JOB.id }),
      "admin.job": () => ({ ...JOB, result: summary }),
    });
    const { user } = renderInApp(<ObservationCleanupCard />);
    await user.click(screen.getByRole("button", { name: "Preview what goes" }));
    await screen.findByText("A cleanup now would delete 1 observations, 0 file records and 0 stored images.");
    const remove = screen.getByRole("button", { name: "Delete observation data" });
    expect(remove.hasAttribute("disabled")).toBe(true);
    await user.type(screen.getByLabelText(/^Type “delete all observations” to confirm/), "delete all observations");
    expect(remove.hasAttribute("disabled")).toBe(false);
    await user.keyboard("{Enter}");
    await screen.findByText("Deleted 1 observations, 0 file records and 0 stored images.");
    expect(api.calls("cleanup.observations")).toEqual([{ dryRun: true }, { dryRun: false, createBackup: true }]);
    expect(api.calls("admin.job")[0]).toEqual({ id: JOB.id });
  });
});

// @vitest-environment happy-dom
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { BackupTable } from "./BackupTable";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

const backup = { id: "bkp_1", createdAt: "2026-11-20T02:30:00.000Z", trigger: "manual", sizeBytes: 40_960, status: "verified", error: null } as const;

describe("the backups table", () => {
  it("says whether a verification passed, once its job ends", async () => {
    api = await startApi({
      "auth.me": () => signedIn({ roles: ["serverAdmin"] }),
      "backups.list": () => ({ items: [backup] }),
      "backups.verify": () => ({ jobId: "job_1" }),
      "admin.job": () => ({ id: "job_1", status: "completed", progress: { stage: null, done: 1, total: 1 }, result: null, error: null }),
    });
    renderInApp(<BackupTable />);
    await userEvent.setup({ delay: null }).click(await screen.findByRole("button", { name: /^Verify the backup of/ }));
    await screen.findByText(/^Verification passed: the backup of .+ matches its manifest/);
    expect(api.calls("backups.verify")).toEqual([{ id: "bkp_1" }]);
  });
});

import { describe, expect, it } from "vitest";
import { loginSession } from "../support/auth-suite";
import { holdTable } from "../support/table-hold";
import { until } from "../support/until";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const ADMIN = { email: "jobs-e2e@example.com", password: "jobs e2e password" };
// The worker runs in the server process, so the restore really runs (and waits where the test holds it).
const suite = browserSuite({ MERIDIAN_ROLE: "all", ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });

describe("web app: the Jobs page", { timeout: 180_000 }, () => {
  it("lists long jobs, and ends a restore that will not finish from the maintenance banner's link, by keyboard", async () => {
    const server = suite.server();
    const { token } = await loginSession(server, ADMIN);
    const api = async <T>(path: string, init: { method?: string; json?: unknown } = {}) =>
      (await (await server.request(path, { method: init.method ?? "GET", token, json: init.json })).json()) as T;
    const backup = await api<{ id: string; jobId: string }>("/api/v1/admin/backups", { method: "POST" });
    await until("the backup to be verified", async () => (await api<{ status: string }>(`/api/v1/admin/backups/${backup.id}`)).status === "verified");

    // A restore held halfway through its load: maintenance holds every write meanwhile.
    const hold = await holdTable(server.databaseUrl, "push_subscriptions");
    try {
      const { jobId } = await api<{ jobId: string }>(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" });
      await until("the restore to hold writes", async () => (await api<{ active: boolean }>("/api/v1/maintenance")).active);

      // Signing in (through the form) still works during maintenance, and the banner shows the way out.
      const page = await suite.pages.signInWithForm("admin", ADMIN);
      await page.goto(appUrl(server, ""));
      const banner = page.getByRole("status").filter({ hasText: "Maintenance:" });
      await banner.getByRole("link", { name: "end it on the Jobs page" }).click();
      await page.getByRole("heading", { name: "Jobs", level: 1 }).waitFor(WAIT);
      expect(await page.getByLabel("Kind").inputValue()).toBe("backup_restore");
      const table = page.getByRole("table", { name: "Jobs" });
      await table.getByText(jobId).waitFor(WAIT);
      await table.getByRole("progressbar", { name: `Progress of Restore ${jobId}` }).waitFor(WAIT);

      // Keyboard only: focus the row's Cancel, open the dialog, confirm.
      await table.getByRole("button", { name: `Cancel Restore ${jobId}` }).focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("heading", { name: "Cancel this restore?" }).waitFor(WAIT);
      await dialog.getByRole("button", { name: "Keep it" }).waitFor(WAIT);
      await dialog.getByRole("button", { name: "Cancel the job" }).focus();
      await page.keyboard.press("Enter");
      await page.getByText(`Restore ${jobId} was cancelled, and what it held was released.`).first().waitFor(WAIT);
      await table.getByText(/^Cancelled by .+\(jobs-e2e@example\.com\)$/).waitFor(WAIT);
      await banner.waitFor({ state: "detached", ...WAIT });
      expect(await api<{ active: boolean }>("/api/v1/maintenance")).toMatchObject({ active: false });

      // The filters are in the URL: a reload shows the same list.
      await page.getByLabel("Status").selectOption("failed");
      await page.reload();
      expect(await page.getByLabel("Status").inputValue()).toBe("failed");
      await page.getByRole("table", { name: "Jobs" }).getByText(jobId).waitFor(WAIT);
      await page
        .getByRole("table", { name: "Jobs" })
        .getByRole("button", { name: /^Cancel / })
        .waitFor({ state: "detached", ...WAIT });
    } finally {
      await hold.release();
    }
  });
});

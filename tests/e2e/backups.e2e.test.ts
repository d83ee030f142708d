import { describe, expect, it } from "vitest";
import { loginSession } from "../support/auth-suite";
import { until } from "../support/until";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const ADMIN = { email: "backups-e2e@example.com", password: "backups e2e password" };
// The worker runs in the server process, so backups and restores really run.
const suite = browserSuite({ MERIDIAN_ROLE: "all", ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });

describe("web app: backup management", { timeout: 180_000 }, () => {
  it("creates a backup with progress, restores it behind a typed date, and deletes old ones after a preview", async () => {
    const server = suite.server();
    const { token } = await loginSession(server, ADMIN);
    const createProject = async (name: string) =>
      ((await (await server.request("/projects", { method: "POST", token, json: { name } })).json()) as { id: string }).id;
    await createProject("In the backup");

    const page = await suite.pages.signInAt("admin", ADMIN, "admin");
    await page.getByRole("link", { name: /Backup management/ }).click();
    await page.getByRole("heading", { name: "Backup management", level: 1 }).waitFor(WAIT);
    await page.getByText(/not the image files themselves/).waitFor(WAIT);
    await page.getByRole("button", { name: "Create backup" }).click();
    await page.getByText(/^Backup of .+ verified: .+B\.$/).waitFor(WAIT);
    const table = page.getByRole("table", { name: "Backups" });
    await table.getByText("verified").waitFor(WAIT);

    // A change after the backup, which the restore takes back.
    await createProject("After the backup");
    const { items } = (await (await server.request("/api/v1/admin/backups", { token })).json()) as { items: Array<{ createdAt: string }> };
    const date = items[0]!.createdAt.slice(0, 10);
    await table
      .getByRole("button", { name: /^Restore the backup of/ })
      .first()
      .click();
    const dialog = page.getByRole("dialog");
    const restore = dialog.getByRole("button", { name: "Restore" });
    expect(await restore.isDisabled()).toBe(true);
    await dialog.getByLabel(/Type the backup's date/).fill(date);
    await restore.click();
    await page.getByText(/^The backup of .+ is restored\. A quick integrity scan/).waitFor(WAIT);
    const projects = (await (await server.request("/projects", { token })).json()) as { items: Array<{ name: string }> };
    expect(projects.items.map((project) => project.name)).toEqual(["In the backup"]);

    await page.getByRole("button", { name: "Delete old backups" }).click();
    const cleanup = page.getByRole("dialog");
    await cleanup.getByLabel("Days to keep").fill("0");
    await cleanup.getByLabel("Keep at least").fill("0");
    await cleanup.getByRole("button", { name: "Preview" }).click();
    // The only backup is the newest verified one, which always stays.
    await cleanup.getByText("Nothing is that old: no backup would be deleted.").waitFor(WAIT);
    await page.keyboard.press("Escape");
    await until(
      "the backup to stay",
      async () => ((await (await server.request("/api/v1/admin/backups", { token })).json()) as { items: unknown[] }).items.length === 1,
    );
  });
});

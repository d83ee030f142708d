import { describe, expect, it } from "vitest";
import { loginSession } from "../support/auth-suite";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const ADMIN = { email: "cleanup-e2e@example.com", password: "cleanup e2e password" };
// The worker runs in the server process, so the cleanup job really runs.
const suite = browserSuite({ MERIDIAN_ROLE: "all", ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });

describe("web app: observation data cleanup", { timeout: 120_000 }, () => {
  it("previews what goes, asks for a typed confirmation, then deletes and says what went", async () => {
    const server = suite.server();
    const { token } = await loginSession(server, ADMIN);
    const post = async (path: string, json: unknown) => ((await (await server.request(path, { method: "POST", token, json })).json()) as { id: string }).id;
    const observatoryId = await post("/observatories", { name: "Cleaned" });
    const projectId = await post("/projects", { name: "Cleaned" });
    const target = { name: "Deneb", ra: 310.4, dec: 45.3, exposures: [{ filter: "L", exposureSeconds: 30, count: 1, binning: 1 }] };
    await post("/observations", { name: "Soon gone", projectId, observatoryId, targets: [target] });

    const page = await suite.pages.signInAt("admin", ADMIN, "admin");
    await page.getByRole("button", { name: "Preview what goes" }).click();
    await page.getByText("A cleanup now would delete 1 observations, 0 file records and 0 stored images.").waitFor(WAIT);
    const remove = page.getByRole("button", { name: "Delete observation data" });
    expect(await remove.isDisabled()).toBe(true);
    await page.getByLabel(/^Type “delete all observations” to confirm/).fill("delete all observations");
    await remove.press("Enter");
    await page.getByText("Deleted 1 observations, 0 file records and 0 stored images.").waitFor(WAIT);
    const observations = (await (await server.request("/observations", { token })).json()) as { items: unknown[] };
    expect(observations.items).toEqual([]);
  });
});

import { readFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { readZip } from "../support/zip-reading";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const suite = browserSuite();
let server: TestServer;
let owner: Awaited<ReturnType<typeof signupUser>>;
let observatoryId: string;
let projectId: string;
const named: Record<string, string> = {};

async function api<T = { id: string }>(pathname: string, token: string, json?: unknown): Promise<T> {
  const response = await server.request(pathname, { method: json === undefined ? "GET" : "POST", token, json });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const exposure = { filter: "L", exposureSeconds: 60, count: 1, binning: 1 };
beforeAll(async () => {
  server = suite.server();
  owner = await signupUser(server, { name: "Fiona Filter" });
  observatoryId = (await api("/observatories", owner.token, { name: "Filter dome" })).id;
  projectId = (await api("/projects", owner.token, { name: "Filter survey" })).id;
  for (const [name, target, priority] of [
    ["Alpha field", "M 31", 3],
    ["Beta field", "NGC 7000", 9],
    ["Gamma field", "M 42", 5],
    ["Delta field", "NGC 7000 B", 1],
  ] as const)
    named[name] = (
      await api("/observations", owner.token, { name, projectId, observatoryId, priority, targets: [{ name: target, ra: 10, dec: 20, exposures: [exposure] }] })
    ).id;
  await api(`/observations/${named["Gamma field"]}/cancel`, owner.token, {});
});

describe("web app: finding observations", { timeout: 120_000 }, () => {
  it("searches, filters and sorts, all kept in the URL: reload and back keep the view, exports follow it", async () => {
    const page = await suite.pages.signInAt("owner", { email: owner.user.email, password: owner.password }, "observations");
    const table = page.getByRole("table", { name: "Observations" });
    // Each row's one link is its name (the selection column before it holds a checkbox).
    const names = () => table.getByRole("row").locator("td a").allInnerTexts();
    await expect.poll(names).toEqual(["Delta field", "Gamma field", "Beta field", "Alpha field"]);

    // Search by a target's name, typed: the URL follows once typing pauses.
    await page.getByLabel("Search").fill("ngc 7000");
    await page.waitForURL(/[?&]q=ngc\+7000/);
    await expect.poll(names).toEqual(["Delta field", "Beta field"]);
    await page.reload();
    await expect.poll(() => page.getByLabel("Search").inputValue()).toBe("ngc 7000");
    await expect.poll(names).toEqual(["Delta field", "Beta field"]);

    // Sort by priority from the column heading, by keyboard; twice turns it round.
    const priority = page.getByRole("columnheader", { name: "Priority" });
    await priority.getByRole("button").focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/sort=-priority/);
    await expect.poll(() => priority.getAttribute("aria-sort")).toBe("descending");
    await expect.poll(names).toEqual(["Beta field", "Delta field"]);
    await page.getByLabel("Search").fill("");
    await page.waitForURL((url) => !url.searchParams.has("q"));
    await expect.poll(names).toEqual(["Beta field", "Gamma field", "Alpha field", "Delta field"]);
    await priority.getByRole("button").click();
    await page.waitForURL(/sort=priority/);
    await expect.poll(() => priority.getAttribute("aria-sort")).toBe("ascending");
    await expect.poll(names).toEqual(["Delta field", "Alpha field", "Gamma field", "Beta field"]);
    await page.reload();
    await expect.poll(() => page.getByRole("columnheader", { name: "Priority" }).getAttribute("aria-sort")).toBe("ascending");
    await expect.poll(names).toEqual(["Delta field", "Alpha field", "Gamma field", "Beta field"]);

    // Statuses: a choice is a step in the history, which back undoes.
    await page.getByText("Any status").click();
    // The box follows the URL, which the choice changes a moment later: click, then wait for both.
    const cancelled = page.getByRole("checkbox", { name: "Cancelled" });
    await cancelled.click();
    await page.waitForURL(/status=cancelled/);
    await expect.poll(() => cancelled.isChecked()).toBe(true);
    await expect.poll(names).toEqual(["Gamma field"]);
    const csv = await page.getByRole("link", { name: "Export CSV" }).getAttribute("href");
    expect(new URL(csv!, server.url).searchParams.get("status")).toBe("cancelled");
    const exported = await server.request(csv!, { token: owner.token });
    expect((await exported.text()).split("\r\n").filter(Boolean)).toHaveLength(2);
    await page.goBack();
    await page.waitForURL((url) => !url.searchParams.has("status"));
    await expect.poll(names).toEqual(["Delta field", "Alpha field", "Gamma field", "Beta field"]);

    // The owner and a creation range go into the URL too; a day after today shows nothing.
    await page.getByLabel("Owner").selectOption({ label: "Me" });
    await page.waitForURL(new RegExp(`ownerId=${owner.user.id}`));
    await expect.poll(names).toHaveLength(4);
    const tomorrow = new Date(Date.now() + 86_400_000);
    const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, "0")}-${String(tomorrow.getDate()).padStart(2, "0")}`;
    await page.getByLabel("Created from").fill(day);
    await page.waitForURL(new RegExp(`from=${day}`));
    await page.getByText("No observations match").waitFor(WAIT);
    const json = await page.getByRole("link", { name: "Export JSON" }).getAttribute("href");
    expect(JSON.parse(await (await server.request(json!, { token: owner.token })).text())).toEqual([]);
  });

  it("downloads all of an observation's files as one ZIP", async () => {
    const key = await api<{ key: string }>(`/observatories/${observatoryId}/api-keys`, owner.token, { name: "plugin" });
    const files = { "a.fits": randomBytes(5_000), "b.fits": randomBytes(700) };
    for (const [filename, body] of Object.entries(files)) {
      const response = await server.request(`/observations/${named["Alpha field"]}/files?filename=${filename}`, {
        method: "POST",
        token: key.key,
        headers: { "content-type": "application/fits" },
        body,
      });
      expect(response.status).toBe(201);
    }
    const page = await suite.pages.signInAt("owner", { email: owner.user.email, password: owner.password }, `observations/${named["Alpha field"]}`);
    const link = page.getByRole("link", { name: "Download all (ZIP)" });
    await link.waitFor(WAIT);
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe("Alpha field.zip");
    const entries = await readZip(await readFile((await download.path())!));
    expect(entries.map((entry) => [entry.name, entry.bytes!.toString("hex")])).toEqual(
      Object.entries(files).map(([name, bytes]) => [name, bytes.toString("hex")]),
    );
  });
});

import { randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signupUser, startTestServer, type TestServer } from "../support/test-server";
import { ensureWebBuilt, launchChromium } from "./support/browser";
import { appUrl, testPages, WAIT } from "./support/session";

const ADMIN = { email: "root-orgs@example.com", password: "admin password 1" };
const suffix = randomBytes(3).toString("hex");
const ORG = { name: `Orion Society ${suffix}`, shortName: `orion-${suffix}` };
const TAKEN_SHORT_NAME = `taken-${suffix}`;
const OBSERVATORY = `Dome One ${suffix}`;

type SignedUp = Awaited<ReturnType<typeof signupUser>>;

let server: TestServer;
let browser: Browser;
let pageA: Page;
let pageB: Page;
let userA: SignedUp;
let userB: SignedUp;
let organizationId = "";
let observatoryId = "";
const pageErrors: string[] = [];

const app = (route = "") => appUrl(server, route);
const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).click();

async function api<T>(pathname: string, token: string): Promise<T> {
  const response = await server.request(pathname, { token });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const memberRow = (page: Page, tableName: string, text: string) => page.getByRole("table", { name: tableName }).getByRole("row").filter({ hasText: text });

beforeAll(async () => {
  const webDist = ensureWebBuilt();
  server = await startTestServer({ WEB_DIST_DIR: webDist, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  userA = await signupUser(server, { name: "Alice Archer" });
  userB = await signupUser(server, { name: "Bob Bright" });
  // Someone else already holds a short name, so the form must show SHORT_NAME_TAKEN at its field.
  const other = await signupUser(server, { name: "Carol Other" });
  const taken = await server.request("/organizations", {
    method: "POST",
    token: other.token,
    json: { name: "Taken Org", shortName: TAKEN_SHORT_NAME, type: "other", contactEmail: "taken@example.com" },
  });
  expect(taken.status).toBe(201);
  // Made through its dialog in apps/web/src/pages/OrganizationsPage.test.tsx; here A owns it from the start.
  const created = await server.request("/organizations", {
    method: "POST",
    token: userA.token,
    json: { name: ORG.name, shortName: ORG.shortName, type: "research_institute", contactEmail: "office@orion.example.org" },
  });
  expect(created.status).toBe(201);
  organizationId = ((await created.json()) as { id: string }).id;
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

// The server's state carries from test to test (the organization made first is used later), but
// every test gets fresh signed-in pages, so a dialog or page a failed test left open cannot stand
// in the next one's way.
const pages = testPages(
  () => browser,
  () => server,
  pageErrors,
);
beforeEach(async () => {
  pageA = await pages.signIn("A", { email: userA.user.email, password: userA.password });
  pageB = await pages.signIn("B", { email: userB.user.email, password: userB.password });
});
afterEach(async (context) => {
  if (context.task.result?.state === "fail") await pages.report();
  await pages.closeAll();
});

describe("web app: organizations, observatories and ownership", { timeout: 60_000 }, () => {
  it("adds user B as a member by exact email and edits a permission", async () => {
    await pageA.goto(app(`organizations/${organizationId}`));
    await pageA.getByRole("tab", { name: "Members", selected: true }).waitFor(WAIT);
    const form = pageA.getByRole("form", { name: "Add a member" });

    await form.getByLabel("Member email").fill(`nobody-${suffix}@example.com`);
    await form.getByRole("button", { name: "Add member" }).click();
    await form.getByText("No Meridian account uses this email address").waitFor(WAIT);

    // Exact match, but case-insensitive.
    await form.getByLabel("Member email").fill(userB.user.email.toUpperCase());
    await form.getByRole("button", { name: "Add member" }).click();
    const rowB = memberRow(pageA, "Organization members", userB.user.email);
    await rowB.waitFor(WAIT);
    await expect.poll(() => rowB.getByText("Member", { exact: true }).count()).toBe(1);
    await expect.poll(() => form.getByLabel("Member email").inputValue()).toBe("");

    // The owner's own checkboxes are fixed; B's are editable by the owner.
    const ownerBox = pageA.getByRole("checkbox", { name: `Manage members for ${userA.user.name}` });
    await expect.poll(() => ownerBox.isChecked()).toBe(true);
    await expect.poll(() => ownerBox.isDisabled()).toBe(true);
    // The deprecated billing permission is accepted by the API but shown nowhere.
    await expect.poll(() => pageA.getByText(/billing/i).count()).toBe(0);

    const projects = pageA.getByRole("checkbox", { name: `Manage projects for ${userB.user.name}` });
    await expect.poll(() => projects.isChecked()).toBe(false);
    await projects.check();
    await pageA.getByText(`Permissions saved for ${userB.user.name}.`).first().waitFor(WAIT);

    const members = await api<{ items: Array<{ userId: string; role: string; permissions: Record<string, boolean> }> }>(
      `/organizations/${organizationId}/members`,
      userA.token,
    );
    const b = members.items.find((member) => member.userId === userB.user.id);
    expect(b).toMatchObject({ role: "member", permissions: { can_manage_projects: true, can_manage_members: false, can_manage_observatories: false } });

    // The audit tab records it.
    await pageA.getByRole("tab", { name: "Audit log" }).click();
    const audit = pageA.getByRole("table", { name: "Audit log" });
    await audit.getByRole("row").filter({ hasText: "Member added" }).filter({ hasText: userB.user.name }).waitFor(WAIT);
    await audit.getByRole("row").filter({ hasText: "Permissions changed" }).waitFor(WAIT);
  });

  it("creates an observatory and adds the organization to it as a member", async () => {
    await nav(pageA, "Observatories");
    await pageA.getByRole("heading", { name: "Observatories", exact: true }).waitFor(WAIT);
    await pageA.getByRole("button", { name: "New observatory" }).click();
    const dialog = pageA.getByRole("dialog", { name: "Create observatory" });
    await dialog.getByLabel("Observatory name").fill(OBSERVATORY);
    await expect.poll(() => dialog.getByLabel("Owner").inputValue()).toBe("");
    await dialog.getByRole("button", { name: "Create observatory" }).click();
    await pageA.getByRole("heading", { name: OBSERVATORY, level: 1 }).waitFor(WAIT);
    observatoryId = new URL(pageA.url()).pathname.split("/").pop()!;

    await pageA.getByRole("tab", { name: "Members" }).click();
    const form = pageA.getByRole("form", { name: "Add an organization" });
    await form.getByLabel("Organization", { exact: true }).selectOption({ label: ORG.name });
    await form.getByLabel("View", { exact: true }).check();
    await form.getByLabel("Observe", { exact: true }).check();
    await expect.poll(() => form.getByLabel("Operate", { exact: true }).isChecked()).toBe(false);
    await form.getByRole("button", { name: "Add organization" }).click();

    const row = memberRow(pageA, "Member organizations", ORG.name);
    await row.waitFor(WAIT);
    await expect.poll(() => pageA.getByRole("checkbox", { name: `Observe for ${ORG.name}` }).isChecked()).toBe(true);
    await expect.poll(() => pageA.getByRole("checkbox", { name: `Operate for ${ORG.name}` }).isChecked()).toBe(false);

    const members = await api<{ organizations: Array<{ organizationId: string; permissions: Record<string, boolean>; owning: boolean }> }>(
      `/observatories/${observatoryId}/members`,
      userA.token,
    );
    expect(members.organizations).toEqual([
      { organizationId, name: ORG.name, owning: false, permissions: { can_view: true, can_observe: true, can_operate: false, can_admin: false } },
    ]);

    await pageA.getByRole("tab", { name: "History" }).click();
    await pageA.getByRole("list", { name: "Observatory history" }).getByText(`${ORG.name} added`).waitFor(WAIT);
  });

  it("lets member B see the observatory with the permissions inherited through the organization", async () => {
    await nav(pageB, "Observatories");
    const card = pageB.getByRole("listitem", { name: OBSERVATORY });
    await card.waitFor(WAIT);
    const badges = card.getByRole("list", { name: "Your permissions" }).getByRole("listitem");
    await expect.poll(() => badges.allInnerTexts(), WAIT).toEqual(["Can view", "Can observe"]);
    // B may view the observatory, and so reads whose it is (its members list names the owner too).
    await card.getByText(`Owned by ${userA.user.name}`).waitFor(WAIT);

    await card.getByRole("link", { name: OBSERVATORY }).click();
    await pageB.getByRole("heading", { name: OBSERVATORY, level: 1 }).waitFor(WAIT);
    await pageB.getByRole("tab", { name: "My permissions" }).click();
    const sources = pageB.getByRole("list", { name: "Permission sources" });
    await sources.getByText(`Through ${ORG.name}`).waitFor(WAIT);
    await expect.poll(() => sources.locator(":scope > li").count()).toBe(1);
    const effective = pageB.getByRole("list", { name: "Effective permissions" });
    await effective.getByText("Observe: yes").waitFor(WAIT);
    await effective.getByText("Admin: no").waitFor(WAIT);

    // Only viewing: B cannot change who has access, nor transfer it.
    await pageB.getByRole("tab", { name: "Members" }).click();
    await memberRow(pageB, "Member organizations", ORG.name).waitFor(WAIT);
    await expect.poll(() => pageB.getByRole("form", { name: "Add an organization" }).count()).toBe(0);
    await expect.poll(() => pageB.getByRole("checkbox", { name: `Observe for ${ORG.name}` }).isDisabled()).toBe(true);
    await expect.poll(() => pageB.getByRole("button", { name: "Transfer ownership" }).count()).toBe(0);
  });

  it("transfers the organization's ownership from A to B", async () => {
    await nav(pageA, "Organizations");
    await pageA.getByRole("link", { name: ORG.name }).click();
    await pageA.getByRole("heading", { name: ORG.name, level: 1 }).waitFor(WAIT);
    await pageA.getByRole("button", { name: "Transfer ownership" }).click();
    const dialog = pageA.getByRole("dialog", { name: "Transfer ownership" });
    await dialog.waitFor(WAIT);
    await dialog.getByLabel("New owner").selectOption({ label: `${userB.user.name} (${userB.user.email})` });
    // Nothing is handed over until the new owner's email or name is typed.
    const confirmButton = dialog.getByRole("button", { name: "Transfer ownership" });
    await expect.poll(() => confirmButton.isDisabled()).toBe(true);
    await dialog.getByLabel("Type the new owner's email or name to confirm").fill(userB.user.email.toUpperCase());
    await confirmButton.click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await pageA.getByText(`${userB.user.name} is now the owner of ${ORG.name}.`).first().waitFor(WAIT);

    // A stays a member with every permission and no longer has the owner's controls.
    await pageA.getByText("You are a member").waitFor(WAIT);
    await memberRow(pageA, "Organization members", userB.user.email).getByText("Owner", { exact: true }).waitFor(WAIT);
    await expect.poll(() => memberRow(pageA, "Organization members", userA.user.email).getByText("Member", { exact: true }).count()).toBe(1);
    await expect.poll(() => pageA.getByRole("checkbox", { name: `Manage storage for ${userA.user.name}` }).isChecked()).toBe(true);
    await expect.poll(() => pageA.getByRole("button", { name: "Transfer ownership" }).count()).toBe(0);

    const organization = await api<{ ownerId: string }>(`/organizations/${organizationId}`, userB.token);
    expect(organization.ownerId).toBe(userB.user.id);
  });

  it("shows B as the owner on the organization page", async () => {
    await nav(pageB, "Organizations");
    const row = pageB.getByRole("table", { name: "Your organizations" }).getByRole("row").filter({ hasText: ORG.name });
    await row.getByText("Owner", { exact: true }).waitFor(WAIT);
    await row.getByRole("link", { name: ORG.name }).click();
    await pageB.getByRole("heading", { name: ORG.name, level: 1 }).waitFor(WAIT);
    await pageB.getByText("You are the owner").waitFor(WAIT);
    const rowB = memberRow(pageB, "Organization members", userB.user.email);
    await rowB.getByText("Owner", { exact: true }).waitFor(WAIT);
    await expect.poll(() => pageB.getByRole("checkbox", { name: `Manage members for ${userB.user.name}` }).isDisabled()).toBe(true);
    await pageB.getByRole("button", { name: "Transfer ownership" }).waitFor(WAIT);

    // As the owner, B may now configure storage; the secret never comes back.
    await pageB.getByRole("tab", { name: "External storage" }).click();
    await pageB.getByRole("button", { name: "Add destination" }).click();
    const dialog = pageB.getByRole("dialog", { name: "Add storage destination" });
    await dialog.getByLabel("Label").fill("Archive bucket");
    await dialog.getByLabel("Bucket").fill("orion-archive");
    await dialog.getByLabel("Access key ID").fill("AKIAEXAMPLE");
    // What the server requires is asked for before anything is sent, in the API's words.
    await dialog.getByRole("button", { name: "Add destination" }).click();
    await dialog.getByText("Region is required.").waitFor(WAIT);
    await dialog.getByText("Secret access key is required.").waitFor(WAIT);
    await expect.poll(() => dialog.getByLabel("Region").getAttribute("aria-invalid")).toBe("true");
    expect(await api<{ externalStorage: unknown[] }>(`/organizations/${organizationId}`, userB.token)).toMatchObject({ externalStorage: [] });
    await dialog.getByLabel("Region").fill("eu-central-1");
    await dialog.getByLabel("Secret access key").fill(`very-secret-${suffix}`);
    await dialog.getByRole("button", { name: "Add destination" }).click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    const destination = pageB.getByRole("listitem", { name: "Archive bucket" });
    await destination.getByText("orion-archive").waitFor(WAIT);
    await destination.getByText("Secret access key: configured").waitFor(WAIT);
    expect(await pageB.locator("body").innerText()).not.toContain(`very-secret-${suffix}`);
  });

  it("edits a storage destination: an older one's stray settings dropped, every secret asked for, the server's refusal at its field", async () => {
    // A destination stored before its kind's rules were checked: a setting Dropbox does not have, no secrets.
    const legacy = {
      id: `ext_legacy_${suffix}`,
      kind: "dropbox",
      label: "Old box",
      settings: { folder: "/Old", mode: "full" },
      sealedSecrets: null,
      secretKeys: [],
    };
    const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const list = sql.json([legacy]);
      await sql`update organizations set doc = jsonb_set(doc, '{externalStorage}', doc->'externalStorage' || ${list}) where id = ${organizationId}`;
    } finally {
      await sql.end();
    }
    await pageB.goto(app(`organizations/${organizationId}`));
    await pageB.getByRole("tab", { name: "External storage" }).click();
    const card = pageB.getByRole("listitem", { name: "Old box" });
    await card.getByRole("button", { name: "Edit Old box" }).click();
    const dialog = pageB.getByRole("dialog", { name: "Edit Old box" });

    // One secret typed: every secret of the kind is needed, since they replace what is stored.
    await dialog.getByLabel("App key").fill("app-key");
    await dialog.getByRole("button", { name: "Save destination" }).click();
    await dialog.getByText("Refresh token is required.").waitFor(WAIT);
    await dialog.getByText("App secret is required.").waitFor(WAIT);
    await dialog.getByLabel("Refresh token").fill("refresh-token");
    await dialog.getByLabel("App secret").fill("app-secret");

    // The server's own refusal (a control character the form does not look for) lands at its field.
    await dialog.getByLabel("Label").fill("Old\u0007box");
    await dialog.getByRole("button", { name: "Save destination" }).click();
    await dialog.getByText("Label (external storage 2) must not contain control characters.").waitFor(WAIT);
    await expect.poll(() => dialog.getByLabel("Label").getAttribute("aria-invalid")).toBe("true");

    await dialog.getByLabel("Label").fill("Old box");
    await dialog.getByRole("button", { name: "Save destination" }).click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await card.getByText("App secret: configured").waitFor(WAIT);
    const organization = await api<{ externalStorage: Array<{ id: string; settings: unknown; configuredSecrets: string[] }> }>(
      `/organizations/${organizationId}`,
      userB.token,
    );
    expect(organization.externalStorage.find((destination) => destination.id === legacy.id)).toMatchObject({
      settings: { folder: "/Old" },
      configuredSecrets: ["appKey", "appSecret", "refreshToken"],
    });
  });

  it("creates a project for the organization, sets its status and manages its members", async () => {
    await nav(pageB, "Projects");
    await pageB.getByText("No projects yet").waitFor(WAIT);
    await pageB.getByRole("button", { name: "New project" }).click();
    const dialog = pageB.getByRole("dialog", { name: "Create project" });
    await dialog.getByLabel("Project name").fill(`Variable stars ${suffix}`);
    // B owns the organization now, so it may hold B's projects.
    await dialog.getByLabel("Organization").selectOption({ label: ORG.name });
    await dialog.getByRole("button", { name: "Create project" }).click();
    await pageB.getByRole("heading", { name: `Variable stars ${suffix}`, level: 1 }).waitFor(WAIT);
    const projectId = new URL(pageB.url()).pathname.split("/").pop()!;

    await pageB.getByLabel("Status").selectOption("paused");
    await pageB.getByRole("button", { name: "Save changes" }).click();
    await pageB.getByText("Project saved").waitFor(WAIT);

    const form = pageB.getByRole("form", { name: "Add a project member" });
    await form.getByLabel("Member email").fill(userA.user.email);
    await form.getByLabel("Role").selectOption("admin");
    await form.getByRole("button", { name: "Add member" }).click();
    const rowA = memberRow(pageB, "Project members", userA.user.email);
    await expect.poll(() => rowA.getByLabel(`Role of ${userA.user.name}`).inputValue()).toBe("admin");
    // The owner cannot be removed: there is no button for it.
    await expect.poll(() => memberRow(pageB, "Project members", userB.user.email).getByRole("button").count()).toBe(0);

    const project = await api<{ status: string; organizationId: string; ownerId: string }>(`/projects/${projectId}`, userA.token);
    expect(project).toMatchObject({ status: "paused", organizationId, ownerId: userB.user.id });

    await rowA.getByRole("button", { name: `Remove ${userA.user.name}` }).click();
    const confirm = pageB.getByRole("dialog", { name: "Remove member?" });
    await confirm.getByRole("button", { name: "Remove member" }).click();
    await rowA.waitFor({ state: "detached", ...WAIT });
    const members = await api<{ items: Array<{ userId: string; role: string }> }>(`/projects/${projectId}/members`, userB.token);
    expect(members.items).toEqual([expect.objectContaining({ userId: userB.user.id, role: "owner" })]);
  });

  it("fits a 375px phone screen", async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await pageB.context().storageState() });
    try {
      const small = await phone.newPage();
      small.on("pageerror", (error) => pageErrors.push(error.message));
      await small.goto(app(`organizations/${organizationId}`));
      await memberRow(small, "Organization members", userB.user.email).waitFor(WAIT);
      expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await small.goto(app("observatories"));
      await small.getByRole("listitem", { name: OBSERVATORY }).waitFor(WAIT);
      expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    } finally {
      await phone.close();
    }
    // A server administrator's list of every organization (walked and searched in OrganizationsPage.test.tsx).
    const adminPage = await pages.signInAt("admin", ADMIN, "organizations", { width: 375, height: 740 });
    await adminPage.getByRole("switch", { name: "All organizations" }).check();
    await adminPage.getByRole("table", { name: "All organizations" }).getByRole("link", { name: "Taken Org" }).waitFor(WAIT);
    expect(await adminPage.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });

  it("transfers the observatory to the organization, which then cannot be removed", async () => {
    await pageA.goto(app(`observatories/${observatoryId}`));
    await pageA.getByRole("heading", { name: OBSERVATORY, level: 1 }).waitFor(WAIT);
    await pageA.getByRole("button", { name: "Transfer ownership" }).click();
    const dialog = pageA.getByRole("dialog", { name: "Transfer ownership" });
    await dialog.getByLabel("An organization").check();
    await dialog.getByLabel("New owning organization").selectOption({ label: ORG.name });
    await dialog.getByLabel("Type the organization's name to confirm").fill(ORG.name);
    await dialog.getByRole("button", { name: "Transfer ownership" }).click();
    await dialog.waitFor({ state: "detached", ...WAIT });
    await pageA.getByText(`${ORG.name} now owns ${OBSERVATORY}.`).waitFor(WAIT);

    await pageA.getByRole("tab", { name: "Members" }).click();
    const row = memberRow(pageA, "Member organizations", ORG.name);
    await row.getByText("Owning organization").waitFor(WAIT);
    await expect.poll(() => row.getByRole("button", { name: `Remove ${ORG.name}` }).count()).toBe(0);
    await expect.poll(() => pageA.getByRole("checkbox", { name: `Admin for ${ORG.name}` }).isChecked()).toBe(true);
    await expect.poll(() => pageA.getByRole("checkbox", { name: `Admin for ${ORG.name}` }).isDisabled()).toBe(true);
    // The previous owner stays, as a direct member with every permission.
    await memberRow(pageA, "People with access", userA.user.email).getByText("Direct").waitFor(WAIT);

    // B owns the organization, so B now inherits administration of the observatory.
    await nav(pageB, "Observatories");
    const badges = pageB.getByRole("listitem", { name: OBSERVATORY }).getByRole("list", { name: "Your permissions" }).getByRole("listitem");
    await expect.poll(() => badges.allInnerTexts(), WAIT).toEqual(["Can view", "Can observe", "Can operate", "Can admin"]);
  });

  it("raised no uncaught errors in the pages", () => {
    expect(pageErrors).toEqual([]);
  });
});

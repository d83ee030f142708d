import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { filesCollection, observationsCollection } from "@meridian/db";
import { queuedFrameAnalysis } from "@meridian/rules/frames";
import { loginSession } from "../support/auth-suite";
import { invitationPathFor } from "../support/invitation-links";
import { fileDocument } from "../support/observation-documents";
import { signupUser } from "../support/test-server";
import { until } from "../support/until";
import { appUrl, settled, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";
import { descriptionOf, focusedLabel, isFocused, stepHeading, topBarAndFocus } from "./support/wizard";

/**
 * Every page of the web app at phone size (390×844): nothing may be wider than the screen, except
 * inside a container that scrolls sideways on purpose. The pages come from apps/web/src/routes.tsx,
 * so a page added later is visited too; pages with an id get seeded objects.
 */
const PHONE = { width: 390, height: 844 };
const ADMIN = { email: "phone-admin@example.com", password: "phone admin password" };

interface RoutePath {
  path: string;
  public: boolean;
}

/** The routes' paths, read from the router's source: nested children join their parent's path. */
async function routePaths(): Promise<RoutePath[]> {
  const source = await fs.readFile(path.resolve(import.meta.dirname, "../../apps/web/src/routes.tsx"), "utf8");
  const parents: Array<{ indent: number; path: string }> = [];
  const found: RoutePath[] = [];
  for (const line of source.split("\n")) {
    const indent = line.length - line.trimStart().length;
    const parent = /^\s*path: "([^"]+)",\s*$/.exec(line);
    const leaf = /\{ path: "([^"]+)"/.exec(line);
    const index = /\{ index: true/.test(line);
    if (!parent && !leaf && !index) continue;
    // A route written deeper than a parent's `path:` line is one of its children.
    while (parents.length > 0 && parents[parents.length - 1]!.indent >= indent) parents.pop();
    const prefix = parents.map((entry) => entry.path).join("/");
    if (parent) {
      parents.push({ indent, path: parent[1]! });
      continue;
    }
    const own = leaf ? leaf[1]! : "";
    const full = own.startsWith("/") ? own : [prefix, own].filter(Boolean).join("/");
    found.push({ path: full.replace(/^\//, ""), public: own.startsWith("/") });
  }
  return found;
}

/** Elements sticking out past the right edge, outside any container that scrolls sideways. */
function overflowing(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrollsSideways = (element: Element | null): boolean => {
      for (let node = element?.parentElement ?? null; node && node !== document.body; node = node.parentElement) {
        const style = getComputedStyle(node);
        if ((style.overflowX === "auto" || style.overflowX === "scroll") && node.scrollWidth > node.clientWidth + 1) return true;
        if (style.overflowX === "hidden" || style.overflowX === "clip") return true;
      }
      return false;
    };
    const describe = (element: Element) => {
      const text = (element.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 60);
      const id = element.id ? `#${element.id}` : "";
      const label = element.getAttribute("aria-label");
      return `<${element.tagName.toLowerCase()}${id}${label ? ` aria-label="${label}"` : ""}> "${text}"`;
    };
    const offenders: string[] = [];
    if (document.documentElement.scrollWidth > width + 1) offenders.push(`the page scrolls sideways (${document.documentElement.scrollWidth}px wide)`);
    for (const element of document.body.querySelectorAll("*")) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const style = getComputedStyle(element);
      if (style.visibility === "hidden" || style.position === "fixed" || style.clipPath === "inset(50%)") continue;
      // Controls must be on screen even inside a sideways-scrolling box: nobody finds a checkbox or a Remove button by scrolling a table.
      // Except a timeline's blocks (`data-scrolling-timeline`): links placed by time, that the browser scrolls into view when Tab reaches them.
      const control =
        element.matches("button, input:not([type=hidden]), select, textarea, a[href], [role=tab]") && !element.closest("[data-scrolling-timeline]");
      if (box.right > width + 1 && (control || !scrollsSideways(element))) offenders.push(`${describe(element)} reaches ${Math.round(box.right)}px`);
      if (offenders.length > 5) break;
    }
    return offenders;
  });
}

const suite = browserSuite({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
const { pages } = suite;
const ids: Record<string, string> = {};
let adminToken: string;

async function api<T = { id: string }>(pathname: string, token: string, json?: unknown): Promise<T> {
  const response = await suite.server().request(pathname, { method: json === undefined ? "GET" : "POST", token, json });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  const { token } = await loginSession(suite.server(), ADMIN);
  adminToken = token;
  const member = await signupUser(suite.server(), { name: "Maximilian Longname-Member" });
  const organization = await api("/organizations", token, {
    name: "Very Long Organization Name For Phones",
    shortName: "long-org",
    type: "research_institute",
    contactEmail: "org@example.com",
  });
  await api(`/organizations/${organization.id}/members`, token, { email: member.user.email });
  const observatory = await api("/observatories", token, {
    name: "Observatory With A Long Name",
    location: { latitude: 28.76, longitude: -17.88, elevation: 2396 },
  });
  await api(`/observatories/${observatory.id}/members`, token, { email: member.user.email, permissions: { can_view: true, can_observe: true } });
  await api(`/observatories/${observatory.id}/members/organization`, token, { organizationId: organization.id, permissions: { can_view: true } });
  const project = await api("/projects", token, { name: "Project With A Long Name", organizationId: organization.id });
  await api(`/projects/${project.id}/members`, token, { email: member.user.email, role: "member" });
  await api(`/observatories/${observatory.id}/motd`, token, {
    title: "Dome closed for maintenance",
    message: "All week.",
    severity: "warning",
    deliveryType: "message",
  });
  await api("/api/v1/user/api-keys", token, { name: "phone key" });
  const observation = await api("/observations", token, {
    name: "Observation With A Rather Long Name For Phones",
    projectId: project.id,
    observatoryId: observatory.id,
    targets: [{ name: "NGC 7000 North America Nebula", ra: 314.75, dec: 44.53, exposures: [{ filter: "Ha", exposureSeconds: 300, count: 12, binning: 2 }] }],
  });
  // A waiting one, for the operators' dialogs (edit, priority) and the table's bulk bar.
  const waiting = await api("/observations", token, {
    name: "Waiting Observation With A Long Name Too",
    projectId: project.id,
    observatoryId: observatory.id,
    targets: [{ name: "IC 1396 Elephant's Trunk Nebula", ra: 324.74, dec: 57.5, exposures: [{ filter: "OIII", exposureSeconds: 600, count: 6, binning: 1 }] }],
  });
  // A finished scan with issues (the observation stuck in assigned, a file whose bytes are gone, an
  // object no record names, both with long names), so the integrity page shows its issues table
  // with long ids and the observation page a missing file.
  const { db, storage } = suite.server().server.runtime.deps;
  const stuckSince = new Date(Date.now() - 72 * 3_600_000).toISOString();
  await observationsCollection.update(db, observation.id, (doc) => ({ ...doc, status: "assigned", statusChangedAt: stuckSince }));
  const longName = `NGC7000_North_America_Nebula_Halpha_300s_bin2_${"0".repeat(40)}.fits`;
  await filesCollection.insert(db, fileDocument(observation.id, observatory.id, longName));
  // A frame rejected for every reason, so the gallery's longest words are laid out too.
  const rejected = {
    ...queuedFrameAnalysis(),
    status: "analysed" as const,
    targetName: "NGC 7000 North America Nebula",
    stars: 3,
    fwhmArcsec: 6.25,
    eccentricity: 0.81,
    solveFailure: "NOT_SOLVED" as const,
    grade: "rejected" as const,
    rejectedFor: ["NOT_SOLVED" as const, "TOO_FEW_STARS" as const, "FWHM_TOO_HIGH" as const, "ELONGATED" as const],
    analysedAt: stuckSince,
  };
  await filesCollection.insert(db, fileDocument(observation.id, observatory.id, `frame_${longName}`, { frame: { ...rejected, analysisId: "phone-layout" } }));
  await storage.put(`observations/${observation.id}/orphaned_${longName}`, Buffer.from("nobody's"));
  // Scheduled scans off, so none can hold the quick scan's slot (the default runs Sundays 03:00 UTC).
  await suite.server().request("/api/v1/admin/settings", { method: "PUT", token, json: { scanSchedule: { quick: null, full: null } } });
  const scan = await api("/api/v1/admin/integrity/scans", token, { kind: "full", collections: ["observations", "files"], checkStorage: true });
  await until("the scan to finish", async () => {
    const current = await api<{ status: string }>(`/api/v1/admin/integrity/scans/${scan.id}`, token);
    return current.status === "completed" ? current : undefined;
  });
  // A frame named as cameras name them, for the frames found as cards (added after the scan, which need not know it).
  const shortFrame = { ...rejected, header: { ...rejected.header, filter: "Ha" }, stars: 240, grade: "accepted" as const, rejectedFor: [] };
  await filesCollection.insert(db, fileDocument(observation.id, observatory.id, "orion-edge.fits", { frame: { ...shortFrame, analysisId: "phone-cards" } }));
  // Always between 28° and 30° high at La Palma: dispatch would take it on any dark night, so it has a forecast and a bar.
  const pending = await api("/observations", token, {
    name: "Pending Observation Near The Pole For Phones",
    projectId: project.id,
    observatoryId: observatory.id,
    constraints: { minAltitude: 20, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
    targets: [{ name: "Polaris", ra: 37.95, dec: 89.26, exposures: [{ filter: "L", exposureSeconds: 300, count: 2, binning: 1 }] }],
  });
  const forecast = await api<{ night: string }>(`/observations/${pending.id}/forecast`, token);
  // An invitation to an address with no account, opened signed out: its sign-up path.
  const invitee = "phone.invitee.with.a.rather.long.address@example.com";
  await api(`/organizations/${organization.id}/invitations`, token, { email: invitee, permissions: { can_manage_projects: true } });
  Object.assign(ids, {
    "invitations/:token": await invitationPathFor(suite.server(), invitee),
    pending: `observations/${pending.id}`,
    pendingNight: `observatories/${observatory.id}?tab=tonight&night=${forecast.night}`,
    "admin/integrity": `admin/integrity?scan=${scan.id}`,
    "observations/:id": `observations/${observation.id}`,
    waiting: `observations/${waiting.id}`,
    "observatories/:id": `observatories/${observatory.id}`,
    "organizations/:id": `organizations/${organization.id}`,
    "projects/:id": `projects/${project.id}`,
    "*": "no-such-page",
  });
});

/**
 * Opens `route` at phone size: public pages signed out, the others signed in as the admin. Each
 * kind of visitor keeps one page, loaded afresh for every route as a typed address would be: a
 * fresh browser context per route cost 1.0 to 1.5 s each on a 2-core machine (a new renderer
 * process and a cold cache), half of this file's time.
 */
async function openAtPhoneSize(route: RoutePath, visitors: Map<string, Page>): Promise<Page> {
  const target = ids[route.path] ?? (route.path === "reset-password" ? "reset-password?token=mpr_phone" : route.path);
  const kind = route.public ? "visitor" : "admin";
  let page = visitors.get(kind);
  if (!page) {
    page = route.public ? await pages.signedOut("visitor", PHONE) : await pages.signInAt("admin", ADMIN, target, PHONE);
    visitors.set(kind, page);
    if (route.public) await page.goto(appUrl(suite.server(), target));
  } else await page.goto(appUrl(suite.server(), target));
  await page.getByRole("heading", { level: 1 }).first().waitFor(WAIT);
  // Lists and cards arrive after the heading: measure once the page has its data.
  await settled(page);
  return page;
}

const DIALOG_OPENERS = new RegExp(
  `^(${[
    ...["New organization", "New observatory", "New project", "New system announcement", "New announcement", "Transfer ownership", "Settings"],
    ...["Create a key", "Clone", "Cancel observation", "Remove observatory"],
  ].join("|")})$`,
);

describe("web app at phone size (390×844)", { timeout: 600_000 }, () => {
  it("finds the pages in the router, lays out every page, every tab and the main dialogs within the screen, and Tab moves through each page", async () => {
    const paths = (await routePaths()).map((route) => route.path);
    expect(paths).toEqual(expect.arrayContaining(["login", "", "observatories/:id", "admin", "admin/users", "*"]));
    const problems: string[] = [];
    const visitors = new Map<string, Page>();
    for (const route of await routePaths()) {
      const page = await openAtPhoneSize(route, visitors);
      const check = async (where: string) => {
        for (const offender of await overflowing(page)) problems.push(`${where}: ${offender}`);
      };
      // The keyboard reaches the page: from the top of a fresh page, each Tab lands on another control.
      const seen = new Set<string>();
      for (let press = 0; press < 3; press += 1) {
        await page.keyboard.press("Tab");
        const focused = await page.evaluate(() => {
          const element = document.activeElement;
          return element && element !== document.body ? element.outerHTML.slice(0, 120) : null;
        });
        if (focused === null) problems.push(`/${route.path}: Tab press ${press + 1} focused nothing`);
        else seen.add(focused);
      }
      if (seen.size < 3) problems.push(`/${route.path}: Tab does not move between controls`);
      await check(`/${route.path}`);
      if (process.env.PHONE_SHOTS) await page.screenshot({ path: `/tmp/phone-${route.path.replace(/\W+/g, "_") || "home"}.png`, fullPage: true });

      const tabs = page.getByRole("tab");
      for (let index = 0; index < (await tabs.count()); index += 1) {
        const tab = tabs.nth(index);
        const name = (await tab.innerText()).trim();
        await tab.click();
        await expect.poll(() => tab.getAttribute("aria-selected")).toBe("true");
        await page.getByRole("tabpanel").waitFor(WAIT);
        await settled(page);
        await check(`/${route.path} tab ${name}`);
      }

      const buttons = page.getByRole("main").getByRole("button", { name: DIALOG_OPENERS });
      for (let index = 0; index < (await buttons.count()); index += 1) {
        const button = buttons.nth(index);
        if (!(await button.isVisible()) || !(await button.isEnabled())) continue;
        const name = (await button.innerText()).trim();
        await button.click();
        // Every opener opens a dialog; waiting for it (rather than counting at once) keeps a slow render from opening it over the next click.
        const dialog = page.getByRole("dialog");
        await dialog.first().waitFor(WAIT);
        await check(`/${route.path} dialog ${name}`);
        await page.keyboard.press("Escape");
        await dialog.first().waitFor({ state: "hidden", ...WAIT });
      }
    }
    expect(problems).toEqual([]);
  });

  /** Lays out the first-night checklist and the empty pages a new user meets within the screen, each saying what to do next. */
  async function newcomerPages() {
    const newcomer = await signupUser(suite.server(), { name: "Philippa Newcomer-Longname" });
    const page = await pages.signIn("newcomer", { email: newcomer.user.email, password: newcomer.password });
    await page.setViewportSize(PHONE);
    const problems: string[] = [];
    const visit = async (route: string, next: (page: Page) => Promise<unknown>) => {
      await page.goto(appUrl(suite.server(), route));
      await next(page);
      await settled(page);
      for (const offender of await overflowing(page)) problems.push(`/${route}: ${offender}`);
      if (process.env.PHONE_SHOTS) await page.screenshot({ path: `/tmp/phone-new-${route.replace(/\W+/g, "_") || "home"}.png`, fullPage: true });
    };
    const checklist = page.getByRole("region", { name: "Your first night" });
    await visit("", () => checklist.getByRole("heading", { name: "To do: 5. Submit a first observation" }).waitFor(WAIT));
    // Every step reachable by Tab at phone size: the checklist's controls come one after another.
    const controls = checklist.locator("a[href], button");
    for (let index = 0; index < (await controls.count()); index += 1) {
      await controls.nth(index).focus();
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement !== document.body)).toBe(true);
    }
    await visit("observatories", () => page.getByRole("button", { name: "Create an observatory" }).waitFor(WAIT));
    await visit("observations", () => page.getByRole("link", { name: "Create a project first" }).waitFor(WAIT));
    await visit("projects", () => page.getByRole("button", { name: "Create a project" }).waitFor(WAIT));
    await visit("organizations", () => page.getByRole("button", { name: "Create an organization" }).waitFor(WAIT));
    await visit("announcements", () => page.getByRole("link", { name: "observatory's page" }).waitFor(WAIT));
    await visit("statistics", () => page.getByRole("heading", { name: "No observatory of yours to count yet" }).waitFor(WAIT));

    const observatory = await api("/observatories", newcomer.token, { name: "Newcomer's Observatory With A Long Name" });
    const project = await api("/projects", newcomer.token, { name: "Newcomer's Project With A Long Name" });
    await visit("", () => checklist.getByText(/^pnpm simulate:observatory --url \S+ --key <observatory key> --speed 60$/).waitFor(WAIT));
    await visit(`observatories/${observatory.id}?tab=queue`, () => page.getByRole("button", { name: "Set the location" }).waitFor(WAIT));
    await visit(`observatories/${observatory.id}?tab=keys`, async () => {
      await page.getByLabel("Key name").fill("Dome computer with a long name");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("button", { name: "Copy command" }).first().waitFor(WAIT);
    });
    await visit(`observatories/${observatory.id}?tab=members`, () => page.getByText("No organization has access yet.", { exact: false }).waitFor(WAIT));
    await visit(`projects/${project.id}`, () => page.getByRole("link", { name: "Submit an observation" }).waitFor(WAIT));
    await visit("observations", () => page.getByRole("link", { name: "Submit your first observation" }).waitFor(WAIT));
    expect(problems).toEqual([]);
  }

  /** Lays out the observations filter bar within the screen, every filter set and the status list open, and the frames found as cards. */
  async function observationFilters() {
    const page = await pages.signIn("admin", ADMIN);
    await page.setViewportSize(PHONE);
    await page.goto(appUrl(suite.server(), "observations?q=North%20America&status=assigned,pending,failed&from=2020-01-01&to=2040-12-31&sort=-priority"));
    const first = page.getByRole("link", { name: "Observation With A Rather Long Name For Phones" });
    await first.waitFor(WAIT);
    // All but the search fold behind a button that counts what is set, so the results start on the first screen.
    expect(await page.getByLabel("Project").isVisible()).toBe(false);
    expect((await first.boundingBox())!.y + 20).toBeLessThan(PHONE.height);
    const filters = page.getByRole("button", { name: "Filters (3 set)" });
    expect(await filters.getAttribute("aria-expanded")).toBe("false");
    await filters.click();
    expect(await filters.getAttribute("aria-expanded")).toBe("true");
    await page.getByLabel("Project").waitFor(WAIT);
    await page.getByText("3 statuses").click();
    await page.getByRole("checkbox", { name: "Partially completed" }).waitFor(WAIT);
    expect(await overflowing(page)).toEqual([]);
    expect(await page.getByLabel("Sort by").inputValue()).toBe("-priority");

    // The frames found, as cards: each row's cells stacked, every value named beside it since the headings are gone
    // (from frames-search.e2e).
    await page.goto(appUrl(suite.server(), "frames?filter=Ha"));
    const frameRows = page.getByRole("table", { name: "Frames" }).locator("tbody tr");
    await frameRows.first().waitFor(WAIT);
    await expect.poll(() => frameRows.first().evaluate((row) => getComputedStyle(row).display)).toBe("flex");
    await expect.poll(() => frameRows.first().innerText()).toMatch(/Stars 240\b/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    // The table's box scrolls sideways when a row is too wide: as cards, it must not need to.
    const frames = page.getByRole("table", { name: "Frames" });
    expect(await frames.evaluate((element) => element.parentElement!.scrollWidth - element.parentElement!.clientWidth)).toBe(0);
  }

  /** Lays out the Tonight view (timeline, table, a later night) and the forecast lines within the screen, its bars reached by Tab. */
  async function tonightView() {
    const page = await pages.signIn("admin", ADMIN);
    await page.setViewportSize(PHONE);
    const problems: string[] = [];
    const check = async (where: string) => {
      for (const offender of await overflowing(page)) problems.push(`${where}: ${offender}`);
      if (process.env.PHONE_SHOTS) await page.screenshot({ path: `/tmp/phone-${where.replace(/\W+/g, "_")}.png`, fullPage: true });
    };
    // The night the pending observation is expected in: tonight's, or the next when this one's darkness is over.
    // Asked again when that night's plan no longer has it: darkness may end between the answer and the page.
    const bar = page.getByRole("link", { name: /^Pending Observation Near The Pole For Phones: planned \d\d:\d\d to \d\d:\d\d/ });
    await until(
      "the pending observation's bar in the timeline of the night it is expected in",
      async () => {
        const forecast = await api<{ night: string }>(`/${ids.pending!}/forecast`, adminToken);
        await page.goto(appUrl(suite.server(), `${ids["observatories/:id"]!}?tab=tonight&night=${forecast.night}`));
        return bar.waitFor(WAIT).then(
          () => true,
          () => false,
        );
      },
      { timeoutMs: 60_000 },
    );
    await settled(page);
    await check("tonight timeline");
    const name = (await bar.getAttribute("aria-label"))!;
    await page.getByRole("combobox", { name: "Night" }).focus();
    for (let press = 0; press < 30 && (await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))) !== name; press += 1) {
      await page.keyboard.press("Tab");
    }
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(name);
    await page.getByRole("switch", { name: "Table view" }).check();
    await page.getByRole("table", { name: "Planned observations" }).getByRole("link", { name: "Pending Observation Near The Pole For Phones" }).waitFor(WAIT);
    await check("tonight table");
    await page.getByRole("combobox", { name: "Night" }).selectOption({ index: 7 });
    await page.getByRole("table", { name: "Planned observations" }).getByText("Nothing planned for this night").waitFor(WAIT);
    await check("a later night");

    await page.goto(appUrl(suite.server(), ids.pending!));
    await page.getByText(/^Expected to start around \d\d:\d\d \(observatory time, UTC[^)]*\), (tonight|tomorrow night); /).waitFor(WAIT);
    await check("pending forecast");
    await page.goto(appUrl(suite.server(), ids["observations/:id"]!));
    await page.getByText(/^Assigned since .+; expected to end around \d\d:\d\d\.$/).waitFor(WAIT);
    await check("assigned forecast");
    expect(problems).toEqual([]);
  }

  /** Lays out every step of the submission wizard within the screen: its messages, the catalog's suggestions and each type's fields. */
  async function wizardSteps() {
    const page = await pages.signIn("admin", ADMIN);
    await page.setViewportSize(PHONE);
    await page.goto(appUrl(suite.server(), "observations/new"));
    const problems: string[] = [];
    const check = async (where: string) => {
      for (const offender of await overflowing(page)) problems.push(`wizard, ${where}: ${offender}`);
      if (process.env.PHONE_SHOTS) await page.screenshot({ path: `/tmp/phone-wizard-${where.replace(/\W+/g, "_")}.png`, fullPage: true });
    };
    const step = (number: number) => page.getByRole("heading", { level: 2, name: new RegExp(`^Step ${number} of 5`) }).waitFor(WAIT);
    const next = () => page.getByRole("button", { name: "Next" }).click();

    await step(1);
    await next();
    // How many depends on what the wizard could choose for the admin (the only project or observatory).
    await page.getByText(/^(One field needs|\d fields need) a change before you can go on\.$/).waitFor(WAIT);
    await check("step 1 refused");
    await page.getByLabel("Name", { exact: true }).fill("Observation With A Rather Long Name For Phones");
    await page.getByLabel("Project").selectOption({ label: "Project With A Long Name" });
    await page.getByLabel("Observatory").selectOption({ index: 1 });
    await next();

    await step(2);
    const name = page.getByRole("combobox", { name: "Target name" });
    await name.fill("North America");
    await page.getByRole("listbox").getByRole("option").first().waitFor(WAIT);
    await check("step 2 suggestions");
    await name.press("ArrowDown");
    await name.press("Enter");
    await page.getByRole("listbox").waitFor({ state: "hidden", ...WAIT });
    await page.getByLabel("Right ascension (RA)").fill("25h 10m 00s");
    await page.getByText("RA (target 1) must be less than 24h.").waitFor(WAIT);
    await page.getByRole("button", { name: "Add exposure" }).click();
    await check("step 2 with a message");
    await page.getByLabel("Right ascension (RA)").fill("20h 59m 17s");
    await next();

    await step(3);
    for (const type of ["Flexible", "Fixed time", "Time based", "Monitoring (repeats)", "Rise to set"]) {
      await page.getByRole("radio", { name: type, exact: true }).check();
      await check(`step 3 ${type}`);
    }
    await page.getByRole("radio", { name: "Fixed time", exact: true }).check();
    await page.getByLabel("Window start").fill("2031-01-02T22:00");
    await page.getByLabel("Window end").fill("2031-01-02T21:00");
    await page.getByText("Window end must be after the window start.").waitFor(WAIT);
    await check("step 3 window refused");
    await page.getByLabel("Window end").fill("2031-01-03T02:00");
    await next();

    await step(4);
    await check("step 4");
    await next();
    await step(5);
    await check("step 5 review");
    expect(problems).toEqual([]);
  }

  /** Lays out the operators' controls within the screen: the bulk bar, its dialogs and results, and an observation's edit and priority dialogs. */
  async function operatorsControls() {
    const page = await pages.signIn("admin", ADMIN);
    await page.setViewportSize(PHONE);
    const problems: string[] = [];
    const check = async (where: string) => {
      for (const offender of await overflowing(page)) problems.push(`${where}: ${offender}`);
      if (process.env.PHONE_SHOTS) await page.screenshot({ path: `/tmp/phone-operate-${where.replace(/\W+/g, "_")}.png`, fullPage: true });
    };
    const inDialog = async (opener: string, where: string) => {
      await page.getByRole("button", { name: opener, exact: true }).click();
      const dialog = page.getByRole("dialog");
      await dialog.waitFor(WAIT);
      await check(where);
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden", ...WAIT });
    };

    await page.goto(appUrl(suite.server(), "observations"));
    await page.getByRole("checkbox", { name: "Select every observation shown" }).check();
    const bar = page.getByRole("region", { name: "Bulk actions" });
    await bar.waitFor(WAIT);
    await check("observations, rows selected");
    await inDialog("Set priority", "bulk priority dialog");
    await inDialog("Cancel…", "bulk cancel dialog");
    // Two wait and are paused; the third is assigned and refused, so the results list a refusal.
    await bar.getByRole("button", { name: "Pause" }).click();
    await bar.getByText("2 paused, 1 refused: not in a status that allows it.").waitFor(WAIT);
    await check("observations, bulk results");

    await page.goto(appUrl(suite.server(), ids.waiting!));
    await page.getByRole("button", { name: "Resume", exact: true }).waitFor(WAIT);
    await check("a paused observation's controls");
    await inDialog("Edit", "edit dialog");
    await inDialog("Change priority", "priority dialog");
    expect(problems).toEqual([]);
  }

  it("walks a new user's pages, then the observations' within the screen: checklist, empty pages, filters, frames, Tonight, wizard, operators", async () => {
    // One walk after another, in this order: the operators' walk pauses observations the earlier ones list.
    await newcomerPages();
    await observationFilters();
    await tonightView();
    await wizardSteps();
    await operatorsControls();
  });

  it("the wizard shows what blocks Next below the top bar with the first field in error, and asks a time-based observation for a bound", async () => {
    const phone = { width: 390, height: 844 };
    const owner = await signupUser(suite.server(), { name: "Pia Phone" });
    const tag = randomBytes(3).toString("hex");
    await api("/observatories", owner.token, { name: `Dome ${tag}` });
    await api("/projects", owner.token, { name: `Survey ${tag}` });
    const page = await suite.pages.signInAt(owner.user.name, { email: owner.user.email, password: owner.password }, "observations/new", phone);
    await stepHeading(page, "Step 1 of 5: Observation").waitFor(WAIT);
    await page.getByLabel("Name", { exact: true }).fill(`Phone ${tag}`);
    await page.getByLabel("Project").selectOption({ label: `Survey ${tag}` });
    await page.getByLabel("Observatory").selectOption({ label: `Dome ${tag}` });
    await page.getByRole("button", { name: "Next" }).click();
    await stepHeading(page, "Step 2 of 5: Targets").waitFor(WAIT);

    // Next on the empty targets: the count of what blocks it and the first field in error both on screen, neither under the top bar.
    await page.getByRole("button", { name: "Next" }).click();
    const blocking = page.getByText(/fields? needs? a change before you can go on\./);
    await blocking.waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Target name");
    const { topBar, focused } = await topBarAndFocus(page);
    const count = (await blocking.boundingBox())!;
    expect(count.y).toBeGreaterThanOrEqual(topBar);
    expect(count.y + count.height).toBeLessThanOrEqual(phone.height);
    expect(focused.top).toBeGreaterThanOrEqual(topBar);
    expect(focused.bottom).toBeLessThanOrEqual(phone.height);

    const name = page.getByRole("combobox", { name: "Target name" });
    await name.fill("m31");
    await name.press("Tab");
    await expect.poll(() => page.getByLabel("Right ascension (RA)").inputValue()).not.toBe("");
    await page.getByLabel("Exposure seconds").fill("2");
    await page.getByRole("button", { name: "Next" }).click();

    // A time-based observation with neither bound would be a flexible one: refused at its start, until it has an end.
    await stepHeading(page, "Step 3 of 5: Scheduling").waitFor(WAIT);
    await page.getByRole("radio", { name: "Time based" }).check();
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("One field needs a change before you can go on.").waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Window start");
    // The message, then the zone the time is typed in, named beside the field (the observatory's: UTC, as it has no location).
    expect(await descriptionOf(page.getByLabel("Window start"))).toBe("A time-based observation needs a window start, a window end or both. UTC");
    await page.getByLabel("Window end").fill("2031-01-03T02:00");
    await expect.poll(() => page.getByLabel("Window start").getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Next" }).click();
    await stepHeading(page, "Step 4 of 5: Notifications").waitFor(WAIT);

    // The step list goes back to any step shown before, and forward again to the furthest, never beyond it.
    const stepList = page.getByRole("list", { name: "Steps" });
    expect(await stepList.getByRole("button").allTextContents()).toEqual(["1. Observation", "2. Targets", "3. Scheduling"]);
    expect(await stepList.locator('[aria-current="step"]').textContent()).toBe("4. Notifications");
    await stepList.getByRole("button", { name: "1. Observation" }).focus();
    await page.keyboard.press("Enter");
    const first = stepHeading(page, "Step 1 of 5: Observation");
    await first.waitFor(WAIT);
    await expect.poll(() => isFocused(first)).toBe(true);
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe(`Phone ${tag}`);
    await stepList.getByRole("button", { name: "4. Notifications" }).focus();
    await page.keyboard.press("Enter");
    await stepHeading(page, "Step 4 of 5: Notifications").waitFor(WAIT);
    expect(await stepList.getByRole("button", { name: "5. Review" }).count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(phone.width);
  });
});

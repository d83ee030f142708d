import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

type SignedUp = Awaited<ReturnType<typeof signupUser>>;

const suite = browserSuite();
let server: TestServer;
const tag = () => randomBytes(3).toString("hex");

async function api<T = unknown>(pathname: string, token: string, init: { method?: string; json?: unknown; status?: number } = {}): Promise<T> {
  const response = await server.request(pathname, { method: init.method ?? "GET", token, json: init.json });
  const text = await response.text();
  if (response.status !== (init.status ?? response.status) || !response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Each test signs in its own fresh browser context (closed after it by the suite). */
async function openAs(user: SignedUp, route: string): Promise<Page> {
  return suite.pages.signInAt(user.user.name, { email: user.user.email, password: user.password }, route);
}

beforeAll(() => {
  server = suite.server();
});

describe("web app: roles, deletions, typed transfers and history", { timeout: 90_000 }, () => {
  it("the owner changes a project member's role in the member list", async () => {
    const owner = await signupUser(server, { name: "Paula Owner" });
    const member = await signupUser(server, { name: "Mia Member" });
    const project = await api<{ id: string }>("/projects", owner.token, { method: "POST", json: { name: `Survey ${tag()}` } });
    await api(`/projects/${project.id}/members`, owner.token, { method: "POST", json: { email: member.user.email, role: "member" } });

    const view = await openAs(owner, `projects/${project.id}`);
    const select = view.getByLabel("Role of Mia Member");
    await select.selectOption("admin");
    // Shown, and said in the page's live region for a screen reader.
    await view.getByText("Mia Member is now an admin.").first().waitFor(WAIT);
    await expect.poll(() => view.getByRole("status").filter({ hasText: "Mia Member is now an admin." }).count()).toBe(2);
    await expect
      .poll(
        async () =>
          (await api<{ items: Array<{ userId: string; role: string }> }>(`/projects/${project.id}/members`, owner.token)).items.find(
            (item) => item.userId === member.user.id,
          )?.role,
      )
      .toBe("admin");
    // The owner's own role is not a choice.
    await expect.poll(() => view.getByLabel("Role of Paula Owner").count()).toBe(0);
  });

  it("a project can be deleted only once archived, and the list says it is gone", async () => {
    const owner = await signupUser(server);
    const name = `Old survey ${tag()}`;
    const project = await api<{ id: string }>("/projects", owner.token, { method: "POST", json: { name } });
    const view = await openAs(owner, `projects/${project.id}`);
    const deleteButton = view.getByRole("button", { name: "Delete project" });
    await view.getByText("Only an archived project can be deleted").waitFor(WAIT);
    await expect.poll(() => deleteButton.isDisabled()).toBe(true);

    await view.getByLabel("Status").selectOption("archived");
    await view.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => deleteButton.isEnabled()).toBe(true);
    await deleteButton.click();
    const dialog = view.getByRole("dialog", { name: `Delete ${name}?` });
    await dialog.getByText("its announcements stop showing: active ones are cancelled, acknowledged ones end").waitFor(WAIT);
    await dialog.getByRole("button", { name: "Delete project" }).click();
    await view.getByText(`${name} was deleted.`).waitFor(WAIT);
    await view.getByRole("heading", { name: "Projects", level: 1 }).waitFor(WAIT);
    expect((await server.request(`/projects/${project.id}`, { token: owner.token })).status).toBe(404);
  });

  it("a blocked organization deletion shows what it still owns; once empty it is deleted", async () => {
    const owner = await signupUser(server);
    const suffix = tag();
    const organization = await api<{ id: string; name: string }>("/organizations", owner.token, {
      method: "POST",
      json: { name: `Closing Org ${suffix}`, shortName: `closing-${suffix}`, type: "other", contactEmail: `${suffix}@example.com` },
    });
    const project = await api<{ id: string }>("/projects", owner.token, {
      method: "POST",
      json: { name: `Org survey ${suffix}`, organizationId: organization.id },
    });

    const view = await openAs(owner, `organizations/${organization.id}?tab=settings`);
    await view.getByRole("button", { name: "Delete organization" }).click();
    const dialog = view.getByRole("dialog", { name: `Delete ${organization.name}?` });
    await dialog.getByRole("button", { name: "Delete organization" }).click();
    await dialog
      .getByRole("alert")
      .filter({ hasText: `1 project (Org survey ${suffix})` })
      .waitFor(WAIT);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached", ...WAIT });

    await api(`/projects/${project.id}`, owner.token, { method: "PUT", json: { status: "archived" } });
    await api(`/projects/${project.id}`, owner.token, { method: "DELETE" });
    await view.getByRole("button", { name: "Delete organization" }).click();
    await dialog.getByRole("button", { name: "Delete organization" }).click();
    await view.getByText(`${organization.name} was deleted.`).waitFor(WAIT);
    expect((await server.request(`/organizations/${organization.id}`, { token: owner.token })).status).toBe(404);
  });

  it("takes an observatory's latitude and longitude as people write them, in degrees, minutes and seconds or in degrees", async () => {
    const owner = await signupUser(server, { name: "Lena Location" });
    const observatory = await api<{ id: string }>("/observatories", owner.token, { method: "POST", json: { name: `Pachon ${tag()}` } });
    const view = await openAs(owner, `observatories/${observatory.id}`);
    await view.getByRole("button", { name: "Settings" }).click();
    const settings = view.getByRole("dialog", { name: "Observatory settings" });
    await settings.getByLabel("Latitude").fill("-30:31:61");
    await settings.getByLabel("Longitude").fill("west");
    await settings.getByLabel("Elevation (m)").fill("2715");
    await settings.getByRole("button", { name: "Save settings" }).click();
    await settings.getByText("Latitude must have seconds below 60.").waitFor(WAIT);
    await settings.getByText(/^Longitude must be degrees such as -70\.7367, or degrees, minutes and seconds such as -70:44:12/).waitFor(WAIT);
    // What was typed stays as typed: a number field would have kept -303136 of it.
    await settings.getByLabel("Latitude").fill("-30:31:36");
    expect(await settings.getByLabel("Latitude").inputValue()).toBe("-30:31:36");
    await settings.getByLabel("Longitude").fill("-70° 44′ 12″");
    await settings.getByRole("button", { name: "Save settings" }).click();
    await settings.waitFor({ state: "detached", ...WAIT });
    const saved = await api<{ location: { latitude: number; longitude: number; elevation: number } }>(`/observatories/${observatory.id}`, owner.token);
    expect(saved.location.latitude).toBeCloseTo(-(30 + 31 / 60 + 36 / 3600), 9);
    expect(saved.location.longitude).toBeCloseTo(-(70 + 44 / 60 + 12 / 3600), 9);
    expect(saved.location.elevation).toBe(2715);
    await view.getByText("-30.5267°, -70.7367° · 2715 m").waitFor(WAIT);
  });

  it("an observatory transfer waits for the new owner's name to be typed, and the history tells every step", async () => {
    const owner = await signupUser(server, { name: "Otto Owner" });
    const heir = await signupUser(server, { name: "Hanna Heir" });
    const observatory = await api<{ id: string; name: string }>("/observatories", owner.token, { method: "POST", json: { name: `Dome ${tag()}` } });
    await api(`/observatories/${observatory.id}/members`, owner.token, { method: "POST", json: { email: heir.user.email } });

    const view = await openAs(owner, `observatories/${observatory.id}`);
    await view.getByRole("button", { name: "Settings" }).click();
    const settings = view.getByRole("dialog", { name: "Observatory settings" });
    await settings.getByLabel("Dispatch observations").uncheck();
    await settings.getByRole("button", { name: "Save settings" }).click();
    await settings.waitFor({ state: "detached", ...WAIT });

    await view.getByRole("button", { name: "Transfer ownership" }).click();
    const dialog = view.getByRole("dialog", { name: "Transfer ownership" });
    await dialog.getByLabel("New owner").selectOption({ label: `Hanna Heir (${heir.user.email})` });
    const confirm = dialog.getByRole("button", { name: "Transfer ownership" });
    const typed = dialog.getByLabel("Type the new owner's email or name to confirm");
    await typed.fill("Hanna");
    await expect.poll(() => confirm.isDisabled()).toBe(true);
    await typed.fill("Hanna Heir");
    await confirm.click();
    await view.getByText(`Hanna Heir now owns ${observatory.name}.`).waitFor(WAIT);

    await view.getByRole("tab", { name: "History" }).click();
    const history = view.getByRole("list", { name: "Observatory history" });
    await history.getByText("Ownership transferred from Otto Owner to Hanna Heir").waitFor(WAIT);
    await history.getByText("Dispatch: on → off").waitFor(WAIT);
    await history.getByText("Hanna Heir added").waitFor(WAIT);
    await history.getByText(`Observatory created as ${observatory.name}`).waitFor(WAIT);
  });
  it("names who acted in an organization's observatory's history to another member, not as a former member", async () => {
    const founder = await signupUser(server, { name: "Nora Founder" });
    const colleague = await signupUser(server, { name: "Omar Colleague" });
    const short = tag();
    const organization = await api<{ id: string }>("/organizations", founder.token, {
      method: "POST",
      json: { name: `Stromlo ${short}`, shortName: `stromlo-${short}`, type: "other", contactEmail: `${short}@example.com` },
    });
    await api(`/organizations/${organization.id}/members`, founder.token, { method: "POST", json: { email: colleague.user.email } });
    // The organization owns it; its founder, who made it, is on no list of the observatory's members.
    const observatory = await api<{ id: string }>("/observatories", founder.token, {
      method: "POST",
      json: { name: `Dome ${tag()}`, organizationId: organization.id },
    });

    const view = await openAs(colleague, `observatories/${observatory.id}?tab=history`);
    const history = view.getByRole("list", { name: "Observatory history" });
    await history.getByText(`Stromlo ${short} added as owner`).waitFor(WAIT);
    await expect.poll(() => history.getByText(/^by Nora Founder · /).count(), WAIT).toBe(2);
    expect(await history.getByText(/former member/).count()).toBe(0);
  });
});

import { randomBytes } from "node:crypto";
import { beforeAll, describe, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, settled, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

// No worker: nothing is dispatched, so every status on screen is one the test made.
const suite = browserSuite({ MERIDIAN_ROLE: "server" });
let server: TestServer;
beforeAll(() => {
  server = suite.server();
});

async function api<T = { id: string }>(pathname: string, token: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const response = await server.request(pathname, { method: init.method ?? (init.json === undefined ? "GET" : "POST"), token, json: init.json });
  const text = await response.text();
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

const target = { name: "Arcturus", ra: 213.92, dec: 19.18, exposures: [{ filter: "V", exposureSeconds: 5, count: 1, binning: 1 }] };

/** An owner with an observatory and a project, and a second user who observes there and belongs to the project. */
async function observatoryWithObserver() {
  const tag = randomBytes(3).toString("hex");
  const owner = await signupUser(server, { name: `Owner ${tag}` });
  const observer = await signupUser(server, { name: `Observer ${tag}` });
  const observatory = await api("/observatories", owner.token, { json: { name: `Dome ${tag}` } });
  const project = await api("/projects", owner.token, { json: { name: `Survey ${tag}` } });
  await api(`/projects/${project.id}/members`, owner.token, { json: { email: observer.user.email, role: "member" } });
  await api(`/observatories/${observatory.id}/members`, owner.token, { json: { email: observer.user.email, permissions: { can_observe: true } } });
  const submit = (token: string, name: string) =>
    api("/observations", token, { json: { name, projectId: project.id, observatoryId: observatory.id, targets: [target] } });
  return { tag, owner, observer, observatory, project, submit };
}

const signIn = (account: { user: { name: string; email: string }; password: string }) =>
  suite.pages.signIn(account.user.name, { email: account.user.email, password: account.password });

describe("web app: operating observations", { timeout: 120_000 }, () => {
  it("follows the plugin's connection live on the observatory page: Online as it connects, Offline as it leaves, without a reload", async () => {
    const { owner, observatory } = await observatoryWithObserver();
    const key = await api<{ key: string }>(`/observatories/${observatory.id}/api-keys`, owner.token, { json: { name: "plugin" } });
    const page = await signIn(owner);
    await page.goto(appUrl(server, `observatories/${observatory.id}`));
    const connection = page
      .getByRole("term")
      .filter({ hasText: /^Connection$/ })
      .locator("xpath=following-sibling::dd[1]");
    await connection.getByText("Never connected").waitFor(WAIT);
    await settled(page);
    const simulator = await suite.simulator({ key: key.key });
    // Nothing on this page polls: only the pushed change can bring these.
    await connection.getByText("Online", { exact: true }).waitFor(WAIT);
    await connection.getByText(/^Last seen /).waitFor(WAIT);
    await simulator.goodbye();
    await connection.getByText("Offline", { exact: true }).waitFor(WAIT);
  });
});

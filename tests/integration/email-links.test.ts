import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, loginSession, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { startSmtpCapture, type CapturedMail } from "../support/smtp-capture";
import { startTestServer, type TestServer } from "../support/test-server";

/**
 * Every kind of email that links into the web app links with an absolute address a mail client
 * can open: PUBLIC_URL when it is set, and without it the address the server listens on (for a
 * password reset, the address the request reached), which really serves the app.
 */

const PUBLIC_URL = "https://meridian.example.org";
const ADMIN = { email: "links-admin@example.com", password: "links admin password" };
const APP_MARKER = "<title>Meridian email links</title>";
const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "L", exposureSeconds: 5, count: 1, binning: 1 }] };

/** Every http(s) address in a text (without a sentence's last full stop), and every href of its HTML. */
const linksOf = (mail: CapturedMail) => [
  ...Array.from((mail.text ?? "").matchAll(/https?:\/\/\S+/g), (match) => match[0].replace(/[.,;)]$/, "")),
  ...Array.from((mail.html ?? "").matchAll(/href="([^"]+)"/g), (match) => match[1]!.replace(/&amp;/g, "&")),
];

describe.each([
  { label: "PUBLIC_URL unset", publicUrl: undefined },
  { label: "PUBLIC_URL set", publicUrl: PUBLIC_URL },
])("links in emails, $label", ({ publicUrl }) => {
  let server: TestServer;
  let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
  let webDist: string;
  let admin: Account;
  const api = jsonApi(() => server);

  beforeAll(async () => {
    capture = await startSmtpCapture();
    webDist = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-links-web-"));
    await fs.writeFile(path.join(webDist, "index.html"), `<!doctype html>${APP_MARKER}`);
    server = await startTestServer({
      ...roomyLimits,
      SMTP_URL: capture.url,
      WEB_DIST_DIR: webDist,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ...(publicUrl ? { PUBLIC_URL: publicUrl } : {}),
    });
    const { token } = await loginSession(server, ADMIN);
    admin = { id: (await api.must("/api/v1/auth/me", { token })).id, ...ADMIN, token };
  });
  afterAll(async () => {
    await server?.stop();
    await capture?.stop();
    if (webDist) await fs.rm(webDist, { recursive: true, force: true });
  });

  /** The one message to `to` whose subject matches, once it arrived. */
  async function mailTo(to: string, subject: RegExp | string) {
    const matches = (mail: CapturedMail) =>
      mail.to.some((address) => address.toLowerCase() === to.toLowerCase()) &&
      (typeof subject === "string" ? mail.subject === subject : subject.test(mail.subject ?? ""));
    await capture.waitFor((all) => all.some(matches));
    return capture.messages.find(matches)!;
  }

  /**
   * Every address in the mail is on the site's address, and its links into the app (one at least)
   * go to `appPath`; without PUBLIC_URL, they open the app.
   */
  async function expectAppLinks(mail: CapturedMail, appPath: string) {
    const origin = publicUrl ?? server.url;
    const all = linksOf(mail);
    expect(all.map((link) => new URL(link).origin)).toEqual(all.map(() => origin));
    // No address into the app without its host, as there was in observation emails.
    expect(mail.text?.replace(/https?:\/\/\S+/g, "")).not.toContain("/app/");
    const links = all.filter((link) => new URL(link).pathname.startsWith("/app"));
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      expect(new URL(link).pathname).toBe(`/app${appPath}`);
      if (!publicUrl) {
        const response = await fetch(link);
        expect(response.status).toBe(200);
        expect(await response.text()).toContain(APP_MARKER);
      }
    }
    return links;
  }

  it("a system notice (the server start) links to the administration", async () => {
    await expectAppLinks(await mailTo(ADMIN.email, /started on/), "/admin");
  });

  it("an observation's notice links to the observation, in text and HTML", async () => {
    const owner = await createAccount(server);
    const observatory = await api.must("/observatories", { method: "POST", token: owner.token, json: { name: `Links ${randomUUID().slice(0, 6)}` } }, 201);
    const project = await api.must("/projects", { method: "POST", token: owner.token, json: { name: "Linked" } }, 201);
    const observation = await api.must(
      "/observations",
      {
        method: "POST",
        token: owner.token,
        json: { name: `Linked ${randomUUID().slice(0, 6)}`, projectId: project.id, observatoryId: observatory.id, targets: [target] },
      },
      201,
    );
    // The owner operates their own observatory, and only an operator (never a plugin's key) assigns.
    await api.must(`/observations/${observation.id}/status`, { method: "POST", token: owner.token, json: { status: "assigned" } }, 200);
    const links = await expectAppLinks(await mailTo(owner.email, `${observation.name}: assigned`), `/observations/${observation.id}`);
    expect(links).toHaveLength(2);
  });

  it("an announcement links to the announcements", async () => {
    const user = await createAccount(server);
    const title = `Linked announcement ${randomUUID().slice(0, 6)}`;
    await api.must(
      "/api/v1/system/motd",
      {
        method: "POST",
        token: admin.token,
        json: { title, message: "Read me.", severity: "info", deliveryType: "email", targets: { users: { ids: [user.id] } } },
      },
      201,
    );
    await expectAppLinks(await mailTo(user.email, title), "/announcements");
  });

  it("a password reset links to the reset page with its token", async () => {
    const user = await createAccount(server);
    await api.must("/api/v1/auth/password-reset", { method: "POST", json: { email: user.email } }, 202);
    const [link] = await expectAppLinks(await mailTo(user.email, "Reset your Meridian password"), "/reset-password");
    expect(new URL(link!).searchParams.get("token")).toMatch(/^mpr_/);
  });

  it("a changed password links to the page that resets it", async () => {
    const user = await createAccount(server);
    await api.must(
      "/api/v1/user/password",
      { method: "PUT", token: user.token, json: { currentPassword: user.password, newPassword: "another long password" } },
      204,
    );
    await expectAppLinks(await mailTo(user.email, "Your Meridian password was changed"), "/forgot-password");
  });

  it("the test notification links to the profile", async () => {
    const user = await createAccount(server);
    await api.must("/api/v1/user/notifications/test", { method: "POST", token: user.token }, 200);
    await expectAppLinks(await mailTo(user.email, "Meridian test notification"), "/profile");
  });
});

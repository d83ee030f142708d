// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { OrganizationPage } from "../pages/OrganizationPage";
import { StubRefusal, startApi, type Answer, type ProcedureInput } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { managing, orionFixture } from "./organization-fixture";

type Destination = NonNullable<Answer<"organizations.get">["externalStorage"]>[number];
type Sent = NonNullable<ProcedureInput<"organizations.update">["update"]["externalStorage"]>[number];

/** The storage tab of an organization its owner sees, with `destinations` kept as the server keeps them (secrets never come back). */
async function storageTab(destinations: Destination[], refuse?: (item: Sent, index: number) => StubRefusal | undefined) {
  const api = await startApi({
    "auth.me": () => signedIn({ id: "usr_bob" }),
    "organizations.get": () => orionFixture({ myRole: "owner", myPermissions: managing(true), externalStorage: destinations }),
    "organizations.members": () => ({ items: [] }),
    "invitations.organizationList": () => ({ items: [] }),
    "organizations.update": ({ update }) => {
      const sent = update.externalStorage ?? [];
      sent.forEach((item, index) => {
        const refusal = refuse?.(item, index);
        if (refusal) throw refusal;
      });
      destinations = sent.map((item, index) => {
        const stored = destinations.find((one) => "id" in item && one.id === item.id);
        return {
          id: stored?.id ?? `ext_${index}`,
          kind: item.kind,
          label: item.label,
          settings: "settings" in item && item.settings ? item.settings : (stored?.settings ?? {}),
          configuredSecrets: "secrets" in item && item.secrets ? Object.keys(item.secrets).sort() : (stored?.configuredSecrets ?? []),
        };
      });
      return { id: "org_orion" };
    },
  });
  const rendered = renderInApp(
    <Routes>
      <Route path="/organizations/:id" element={<OrganizationPage />} />
    </Routes>,
    "/organizations/org_orion?tab=storage",
  );
  await screen.findByRole("heading", { name: "External storage" });
  return { api, ...rendered };
}

const sentList = (api: Awaited<ReturnType<typeof storageTab>>["api"]) => api.calls("organizations.update").at(-1)?.update.externalStorage;

describe("an organization's external storage", () => {
  it("asks for what the server requires before sending a new destination, in the API's words, and never shows its secret again", async () => {
    const { api, user } = await storageTab([]);
    await user.click(screen.getByRole("button", { name: "Add destination" }));
    const dialog = await screen.findByRole("dialog", { name: "Add storage destination" });
    await user.type(within(dialog).getByLabelText("Label"), "Archive bucket");
    await user.type(within(dialog).getByLabelText("Bucket"), "orion-archive");
    await user.type(within(dialog).getByLabelText("Access key ID"), "AKIAEXAMPLE");
    await user.click(within(dialog).getByRole("button", { name: "Add destination" }));
    await within(dialog).findByText("Region is required.");
    expect(within(dialog).getByText("Secret access key is required.")).toBeTruthy();
    expect(within(dialog).getByLabelText("Region").getAttribute("aria-invalid")).toBe("true");
    expect(api.calls("organizations.update")).toEqual([]);

    await user.type(within(dialog).getByLabelText("Region"), "eu-central-1");
    await user.type(within(dialog).getByLabelText("Secret access key"), "very-secret");
    await user.click(within(dialog).getByRole("button", { name: "Add destination" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Add storage destination" })).toBeNull());
    const destination = await screen.findByRole("listitem", { name: "Archive bucket" });
    await within(destination).findByText("orion-archive");
    expect(within(destination).getByText("Secret access key: configured")).toBeTruthy();
    expect(document.body.textContent).not.toContain("very-secret");
    expect(sentList(api)).toEqual([
      {
        kind: "s3",
        label: "Archive bucket",
        settings: { bucket: "orion-archive", region: "eu-central-1" },
        secrets: { accessKeyId: "AKIAEXAMPLE", secretAccessKey: "very-secret" },
      },
    ]);
  });

  it("edits an older destination: its stray settings dropped, every secret asked for, the server's refusal at its field", async () => {
    const archive: Destination = {
      id: "ext_archive",
      kind: "s3",
      label: "Archive bucket",
      settings: { bucket: "orion-archive", region: "eu-central-1" },
      configuredSecrets: ["secretAccessKey"],
    };
    // Stored before its kind's rules were checked: a setting Dropbox does not have, no secrets.
    const legacy: Destination = { id: "ext_legacy", kind: "dropbox", label: "Old box", settings: { folder: "/Old", mode: "full" }, configuredSecrets: [] };
    const controlCharacters = new StubRefusal("VALIDATION_FAILED", 400, "Invalid input", [
      { path: "update.externalStorage.1.label", message: "Label (external storage 2) must not contain control characters." },
    ]);
    const { api, user } = await storageTab([archive, legacy], (item) => (item.label.includes("\u0007") ? controlCharacters : undefined));
    const card = await screen.findByRole("listitem", { name: "Old box" });
    await user.click(within(card).getByRole("button", { name: "Edit Old box" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Old box" });

    // One secret typed: every secret of the kind is needed, since they replace what is stored.
    await user.type(within(dialog).getByLabelText("App key"), "app-key");
    await user.click(within(dialog).getByRole("button", { name: "Save destination" }));
    await within(dialog).findByText("Refresh token is required.");
    expect(within(dialog).getByText("App secret is required.")).toBeTruthy();
    expect(api.calls("organizations.update")).toEqual([]);
    await user.type(within(dialog).getByLabelText("Refresh token"), "refresh-token");
    await user.type(within(dialog).getByLabelText("App secret"), "app-secret");

    // The server's own refusal (a control character the form does not look for) lands at its field.
    const label = within(dialog).getByLabelText("Label");
    await user.clear(label);
    await user.type(label, "Old\u0007box");
    await user.click(within(dialog).getByRole("button", { name: "Save destination" }));
    await within(dialog).findByText("Label (external storage 2) must not contain control characters.");
    expect(label.getAttribute("aria-invalid")).toBe("true");

    await user.clear(label);
    await user.type(label, "Old box");
    await user.click(within(dialog).getByRole("button", { name: "Save destination" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Edit Old box" })).toBeNull());
    await within(await screen.findByRole("listitem", { name: "Old box" })).findByText("App secret: configured");
    // The other destination goes back by id alone; this one with its kind's settings only and all of its secrets.
    expect(sentList(api)).toEqual([
      { id: "ext_archive", kind: "s3", label: "Archive bucket" },
      {
        id: "ext_legacy",
        kind: "dropbox",
        label: "Old box",
        settings: { folder: "/Old" },
        secrets: { appKey: "app-key", appSecret: "app-secret", refreshToken: "refresh-token" },
      },
    ]);
  });
});

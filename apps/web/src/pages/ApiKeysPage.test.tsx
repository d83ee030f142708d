// @vitest-environment happy-dom
import { cleanup, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ApiKeysPage } from "./ApiKeysPage";
import { renderPage, signedIn, startPageApi } from "./page-test-support";

let api: Awaited<ReturnType<typeof startPageApi>> | undefined;
afterEach(async () => {
  cleanup();
  await api?.close();
  api = undefined;
});

describe("the API keys page", () => {
  it("links to the API reference (whose favicon tests/integration/api-openapi.test.ts checks)", async () => {
    api = await startPageApi({ "auth.me": () => signedIn(), "user.apiKeys": () => ({ items: [] }) });
    renderPage(<ApiKeysPage />);
    expect(screen.getByRole("link", { name: "API reference" }).getAttribute("href")).toBe("/api/docs");
    await screen.findByRole("heading", { name: "Your keys" });
  });
});

import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server";

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, unknown>;
}
interface Document {
  info: { license?: { name: string; url?: string } };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
}

let server: TestServer;
let source: string;
let doc: Document;
beforeAll(async () => {
  server = await startTestServer();
  const response = await server.request("/api/openapi.json");
  expect(response.status).toBe(200);
  source = await response.text();
  doc = JSON.parse(source) as Document;
});
afterAll(() => server?.stop());

const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method, path, operation })));

describe("the OpenAPI document", () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source, config });
    const described = problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? "?"}`);
    expect(described).toEqual([]);
  });

  it("gives every operation a unique operationId", () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === "string" && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("states the credentials of every operation: bearer or cookie when protected, an empty list when public", () => {
    const publicOperations: string[] = [];
    for (const { method, path, operation } of operations()) {
      expect(Array.isArray(operation.security), `${method} ${path}`).toBe(true);
      if (operation.security!.length > 0) expect(operation.security, `${method} ${path}`).toEqual([{ bearer: [] }, { cookie: [] }]);
      else publicOperations.push(`${method.toUpperCase()} ${path}`);
    }
    expect(publicOperations.sort()).toEqual(
      [
        "GET /api/health",
        "GET /api/health/live",
        "GET /api/health/ready",
        "GET /api/v1/maintenance",
        "GET /api/v1/invitations/{token}",
        "POST /api/v1/auth/login",
        "POST /api/v1/auth/password-reset",
        "POST /api/v1/auth/password-reset/confirm",
        "POST /api/v1/auth/signup",
        "POST /api/v1/user/email/confirm",
      ].sort(),
    );
  });

  it("names its license and this server", () => {
    expect(doc.info.license).toMatchObject({ name: "Apache-2.0" });
    expect(doc.servers).toEqual([expect.objectContaining({ url: server.url })]);
  });
});

import { createAccount, type Account } from "./auth-suite";
import { startServerWithAdmin } from "./json-api";
import type { TestServer } from "./test-server";

export interface ObservingSetup {
  server: TestServer;
  adminToken: string;
  owner: Account;
  observatoryId: string;
  projectId: string;
}

/**
 * A server (its worker in the same process) with a server admin, and an owner with one
 * observatory and one project: what tests that write observation documents start from.
 * Scheduled scans are off, so none can start beside the ones a test starts.
 */
export async function startObservingSetup(admin: { email: string; password: string }, name: string): Promise<ObservingSetup> {
  const { server, adminToken } = await startServerWithAdmin(admin, { MERIDIAN_ROLE: "all" });
  const owner = await createAccount(server);
  const post = async (path: string, token: string, json: unknown, expected: number, method = "POST") => {
    const response = await server.request(path, { method, token, json });
    if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  await post("/api/v1/admin/settings", adminToken, { scanSchedule: { quick: null, full: null } }, 200, "PUT");
  const observatoryId = (await post("/observatories", owner.token, { name }, 201)).id;
  const projectId = (await post("/projects", owner.token, { name }, 201)).id;
  return { server, adminToken, owner, observatoryId, projectId };
}

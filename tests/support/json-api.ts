import { randomBytes } from "node:crypto";
import { loginSession, roomyLimits, type Account } from "./auth-suite";
import { startTestServer, type TestServer } from "./test-server";
import { until } from "./until";

/**
 * Starts a server (HTTP only, with room for many signups) whose ADMIN_EMAIL account is `admin`, and
 * signs that server admin in. `env` adds to or overrides the environment.
 */
export async function startServerWithAdmin(admin: { email: string; password: string }, env: Record<string, string> = {}) {
  const server = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server", ...env, ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password });
  const adminToken = (await loginSession(server, admin)).token;
  return { server, adminToken };
}

export interface JsonRequest {
  method?: string;
  token?: string;
  json?: unknown;
}

export interface Organization {
  id: string;
  name: string;
  shortName: string;
  type: string;
  description: string | null;
  contactEmail: string;
  ownerId: string;
  createdAt: string;
  updatedAt: string;
}

export interface Observatory {
  id: string;
  name: string;
  owner: { kind: string; id: string };
}

/** The body of a new organization, unique by a random tag; `fields` replace or add to it. */
function organizationFields(fields: Record<string, unknown> = {}) {
  const tag = randomBytes(4).toString("hex");
  return { name: `Org ${tag}`, shortName: `org-${tag}`, type: "other", contactEmail: `${tag}@example.com`, ...fields };
}

/**
 * JSON requests to the server that `getServer` returns (a getter, since a file starts its server
 * in beforeAll), and the fixtures most files build with them.
 */
export function jsonApi(getServer: () => TestServer) {
  const send = (path: string, init: JsonRequest) => getServer().request(path, { method: init.method ?? "GET", token: init.token, json: init.json });

  /** The answer's status, text, JSON body (null when empty) and headers, whatever the status. */
  const call = async (path: string, init: JsonRequest = {}) => {
    const response = await send(path, init);
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : null, headers: response.headers };
  };

  /** The JSON body (null when empty) of an answer that must have `status`, or any 2xx without it; anything else throws. */
  const must = async (path: string, init: JsonRequest = {}, status?: number) => {
    const response = await send(path, init);
    const text = await response.text();
    const expected = status === undefined ? response.status >= 200 && response.status < 300 : response.status === status;
    if (!expected) throw new Error(`${init.method ?? "GET"} ${path}: expected ${status ?? "2xx"}, got ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };

  /** The `result.data` of a tRPC mutation over HTTP (`procedure`: `projects.create`, say), which must answer 200; anything else throws. */
  const trpcMutation = async <T = unknown>(procedure: string, init: { token?: string; json?: unknown }) =>
    ((await must(`/trpc/${procedure}`, { ...init, method: "POST" }, 200)) as { result: { data: T } }).result.data;

  /** A new organization owned by `owner` (201), made of `fields` over unique defaults. */
  const createOrganization = async (owner: Account, fields: Record<string, unknown> = {}) =>
    (await must("/organizations", { method: "POST", token: owner.token, json: organizationFields(fields) }, 201)) as Organization;

  /** `owner` adds `member` to the organization (201), with `permissions` when given. */
  const addOrganizationMember = (owner: Account, organizationId: string, member: Account, permissions?: Record<string, boolean>) =>
    must(
      `/organizations/${organizationId}/members`,
      { method: "POST", token: owner.token, json: permissions ? { email: member.email, permissions } : { email: member.email } },
      201,
    );

  /** A new observatory (201), owned by `owner` unless `json` names an organization. */
  const createObservatory = async (owner: Account, json: Record<string, unknown> = { name: `Observatory ${randomBytes(3).toString("hex")}` }) =>
    (await must("/observatories", { method: "POST", token: owner.token, json }, 201)) as Observatory;

  /** `as` adds `member` to the observatory directly (201), with `permissions` when given. */
  const addObservatoryMember = (as: Account, observatoryId: string, member: Account, permissions?: Record<string, boolean>) =>
    must(
      `/observatories/${observatoryId}/members`,
      { method: "POST", token: as.token, json: permissions ? { email: member.email, permissions } : { email: member.email } },
      201,
    );

  /** `as` makes the organization a member of the observatory (201), with `permissions` when given. */
  const addObservatoryOrganization = (as: Account, observatoryId: string, organizationId: string, permissions?: Record<string, boolean>) =>
    must(
      `/observatories/${observatoryId}/members/organization`,
      { method: "POST", token: as.token, json: permissions ? { organizationId, permissions } : { organizationId } },
      201,
    );

  /** A tracked job (`GET /api/v1/admin/jobs/{id}`, as an admin) once it has completed or failed. */
  const jobToEnd = <Job extends { status: string }>(jobId: string, adminToken: string, timeoutMs = 60_000) =>
    until(
      `job ${jobId} to end`,
      async () => {
        const job = (await must(`/api/v1/admin/jobs/${jobId}`, { token: adminToken }, 200)) as Job;
        return job.status === "completed" || job.status === "failed" ? job : undefined;
      },
      { timeoutMs },
    );

  /** A new observation of `owner`'s (201) with one short exposure of Deneb, made of `fields` (projectId and observatoryId at least). */
  const createObservation = async (owner: Account, fields: Record<string, unknown>) =>
    (await must(
      "/observations",
      {
        method: "POST",
        token: owner.token,
        json: {
          name: "Deneb",
          targets: [{ name: "Deneb", ra: 310.36, dec: 45.28, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] }],
          ...fields,
        },
      },
      201,
    )) as { id: string; name: string };

  /** Starts an integrity scan as an admin (202) and answers it once it has completed or failed. */
  const scanToEnd = async <Scan extends { id: string; status: string }>(json: Record<string, unknown>, adminToken: string) => {
    const started = (await must("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json }, 202)) as Scan;
    return until("the scan to complete", async () => {
      const scan = (await must(`/api/v1/admin/integrity/scans/${started.id}`, { token: adminToken }, 200)) as Scan;
      return scan.status === "completed" || scan.status === "failed" ? scan : undefined;
    });
  };

  return {
    call,
    must,
    trpcMutation,
    jobToEnd,
    scanToEnd,
    createObservation,
    createOrganization,
    addOrganizationMember,
    createObservatory,
    addObservatoryMember,
    addObservatoryOrganization,
  };
}

/** The `result.data` of a tRPC answer. */
export const trpcData = async <T = unknown>(response: Response) => ((await response.json()) as { result: { data: T } }).result.data;

/** The stable Meridian code (`error.data.code`) of a tRPC error answer. */
export const trpcErrorCode = async (response: Response) => ((await response.json()) as { error: { data: { code: string } } }).error.data.code;

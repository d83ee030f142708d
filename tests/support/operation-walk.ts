import { randomBytes } from "node:crypto";
import type { jsonApi } from "./json-api";
import type { TestServer } from "./test-server";

/** What a walk over the OpenAPI document reads of an operation. */
export interface WalkedOperation {
  requestBody?: { content: Record<string, { schema?: unknown }> };
  parameters?: Array<{ name: string; in: string; schema?: unknown }>;
}
export type OpenApiDocument = { paths: Record<string, Record<string, WalkedOperation>>; components?: { schemas?: Record<string, unknown> } };

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"];
/** Sign the admin out: every request after them would be refused before its input is read. */
export const SIGNS_OUT = new Set(["POST /api/v1/auth/logout", "auth.logout"]);
/** What a stack trace or a source path looks like in an answer. */
export const STACK_TRACE = /\n\s+at |\bat [\w.<>]+ \(|\/[\w.-]+\/[\w./-]+\.(?:ts|js|mjs|cjs)\b|node_modules|node:internal/;

/** A request body a walk sends to see it refused as input. */
export interface JunkBody {
  label: string;
  body: string;
  contentType?: string;
}
/** Path parameters no validator accepts: too long, a NUL, an emoji. */
export const JUNK_IDS = ["x".repeat(500), "%00", "%F0%9F%94%AD"];
/** Bodies every walk sends: unparsable, the wrong shape, the wrong type in every field, the wrong media type or none. */
export const JUNK_BODIES: JunkBody[] = [
  { label: "malformed JSON", body: '{"name": ', contentType: "application/json" },
  { label: "a JSON array", body: "[1,2,3]", contentType: "application/json" },
  {
    label: "wrong types everywhere",
    body: JSON.stringify({
      name: 7,
      shortName: [],
      latitude: 900,
      status: [],
      targets: "many",
      limit: "many",
      priority: 1e308,
      email: {},
      permissions: "all",
      unknownField: true,
    }),
    contentType: "application/json",
  },
  { label: "text/plain", body: "not json at all", contentType: "text/plain" },
  { label: "no content type", body: "{}" },
];

export async function openApiDocument(server: TestServer): Promise<OpenApiDocument> {
  return (await (await server.request("/api/openapi.json")).json()) as OpenApiDocument;
}

/** Every operation of the document but signing out; those that delete come last, so that the others still find what they name. */
export function walkedOperations(document: OpenApiDocument) {
  return Object.entries(document.paths)
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
    )
    .filter(({ method, path }) => !SIGNS_OUT.has(`${method} ${path}`))
    .sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));
}

/** Real ids by path parameter, and by the collection a path starts with for `{id}`. */
export type RealIds = Record<string, string>;

/**
 * An organization, observatory, project and observation of `token`'s user, new for each walk (a
 * walk's deletions do come), or for each operation. `organizationId` is kept when it still exists:
 * a user owns at most 100 organizations.
 */
export async function freshObjects(api: Pick<ReturnType<typeof jsonApi>, "must" | "call">, token: string, organizationId?: string): Promise<RealIds> {
  const { must, call } = api;
  const tag = randomBytes(4).toString("hex");
  const me = (await must("/api/v1/auth/me", { token }, 200)) as { id: string };
  const found = organizationId ? await call(`/organizations/${organizationId}`, { token }) : undefined;
  const kept = found?.status === 200 ? (found.body as { id: string }) : null;
  const organization =
    kept ??
    ((await must(
      "/organizations",
      { method: "POST", token, json: { name: `Org ${tag}`, shortName: `org-${tag}`, type: "other", contactEmail: `${tag}@example.com` } },
      201,
    )) as { id: string });
  const observatory = (await must("/observatories", { method: "POST", token, json: { name: `Scope ${tag}` } }, 201)) as { id: string };
  const project = (await must("/projects", { method: "POST", token, json: { name: `Survey ${tag}` } }, 201)) as { id: string };
  const target = { name: "M 31", ra: 10.6847, dec: 41.269, epoch: "J2000", exposures: [{ filter: "R", exposureSeconds: 1, count: 1, binning: 1 }] };
  const observation = (await must(
    "/observations",
    { method: "POST", token, json: { name: "Walked", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
    201,
  )) as { id: string };
  return {
    "/organizations": organization.id,
    "/observatories": observatory.id,
    "/projects": project.id,
    "/observations": observation.id,
    "/api/v1/admin/users": me.id,
    "/api/v1/users": me.id,
    userId: me.id,
    orgId: organization.id,
    organizationId: organization.id,
    projectId: project.id,
    observatoryId: observatory.id,
    observationId: observation.id,
  };
}

/** The path with real ids, or undefined when one of its parameters has none. */
export function withRealIds(path: string, ids: RealIds): string | undefined {
  let missing = false;
  const filled = path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const id = name === "id" ? (ids[`/${path.split("/")[1]}`] ?? ids[path.split("/").slice(0, 4).join("/")]) : ids[name];
    if (!id) missing = true;
    return id ?? "";
  });
  return missing ? undefined : filled;
}

/** What is wrong with a REST answer to bad input (a 5xx, a stack, a refusal that is not a coded problem), or undefined. */
export function restAnswerProblem(status: number, contentType: string | null, text: string): string | undefined {
  if (status >= 500) return `${status} ${text.slice(0, 200)}`;
  if (STACK_TRACE.test(text)) return `a stack frame in ${text.slice(0, 200)}`;
  if (status < 400) return undefined;
  const problem = (contentType ?? "").startsWith("application/problem+json")
    ? (JSON.parse(text) as { code?: unknown; detail?: unknown; status?: unknown })
    : undefined;
  if (!problem || typeof problem.code !== "string" || typeof problem.detail !== "string" || problem.status !== status)
    return `${status} not a problem with a code: ${text.slice(0, 200)}`;
  return undefined;
}

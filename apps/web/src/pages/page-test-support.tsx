import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ReactNode } from "react";
import { QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import { MemoryRouter, useLocation, type InitialEntry } from "react-router-dom";
import { StubRefusal } from "../frames/frame-test-support";
import { queryClient } from "../trpc";

type Procedures = Record<string, (input: unknown) => unknown>;

/** A call the page made to a stubbed procedure: its name and its input, queries and mutations alike. */
export interface ProcedureCall {
  name: string;
  input: unknown;
}

/** The inputs of a tRPC batch: in the query string for a query (GET), in the body for a mutation (POST). */
function batchInputs(url: URL, method: string, body: string): Record<string, unknown> {
  if (method === "POST") return body ? (JSON.parse(body) as Record<string, unknown>) : {};
  return JSON.parse(url.searchParams.get("input") ?? "{}") as Record<string, unknown>;
}

/**
 * The API a page talks to, for a component test: tRPC queries and mutations answered from `procedures`
 * (a procedure left out answers NOT_FOUND), each call kept in `calls` to assert what the page sent.
 * The test's document is put at its origin, as `startApi` of the frames does; `close` it after the test.
 */
export async function startPageApi(procedures: Procedures) {
  const calls: ProcedureCall[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://api.test");
      if (!url.pathname.startsWith("/trpc/")) {
        response.writeHead(404).end();
        return;
      }
      const names = decodeURIComponent(url.pathname.slice("/trpc/".length)).split(",");
      const inputs = batchInputs(url, request.method ?? "GET", Buffer.concat(chunks).toString("utf8"));
      const answers = names.map((name, index) => {
        const input = inputs[String(index)];
        calls.push({ name, input });
        try {
          const handler = procedures[name];
          if (!handler) throw new StubRefusal("NOT_FOUND", 404, `No procedure ${name} in this test`);
          return { result: { data: handler(input) ?? null } };
        } catch (error) {
          const refusal = error instanceof StubRefusal ? error : new StubRefusal("INTERNAL", 500, String(error));
          return { error: { message: refusal.message, code: -32600, data: { code: refusal.code, httpStatus: refusal.httpStatus, errors: null } } };
        }
      });
      const failed = answers.some((answer) => "error" in answer);
      response.writeHead(failed ? 207 : 200, { "content-type": "application/json" });
      response.end(JSON.stringify(answers));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${origin}/app/`);
  return {
    calls,
    /** The inputs the page sent to `name`, in order. */
    inputsOf: (name: string) => calls.filter((call) => call.name === name).map((call) => call.input),
    close: () =>
      new Promise<void>((resolve) => {
        // Answers still on their way are finished first: a page's late query must not meet a reset connection.
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/** Where the page's router is (path and query), for the test to read by `screen.getByTestId("where")`. */
function Where() {
  const location = useLocation();
  return <output data-testid="where">{`${location.pathname}${location.search}${location.hash}`}</output>;
}

/**
 * Renders `ui` as the app does, with `<Where />` beside it: the app's own query client (pages refresh
 * what a change touched through it), emptied of the last test's answers, and a router at `path` (with its state, if any).
 */
export function renderPage(ui: ReactNode, path: InitialEntry = "/") {
  queryClient.clear();
  return render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        {ui}
        <Where />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

/** The signed-in user as `auth.me` answers it; `fields` override. */
export const signedIn = (fields: Record<string, unknown> = {}) => ({
  id: "usr_me",
  name: "Ada Admin",
  email: "ada@example.com",
  roles: [] as string[],
  avatarUrl: null,
  timeDisplay: "observatory",
  emailVerified: true,
  ...fields,
});

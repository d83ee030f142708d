import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { ReactNode } from "react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import type { FoundFrame } from "./types";

/** A refusal a stubbed tRPC procedure answers with, as the server's error formatter shapes it. */
export class StubRefusal extends Error {
  constructor(
    readonly code: string,
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
  }
}

type Procedures = Record<string, (input: unknown) => unknown>;

/** A request the test's API received, its body as text. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An answer to a request that is not tRPC's. */
export interface PlainAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** The answer of a tRPC batch (GET `/trpc/a,b?batch=1&input=…`): each call's data, or its refusal as the server's error formatter shapes it. */
function trpcBatch(url: URL, procedures: Procedures): PlainAnswer {
  const names = decodeURIComponent(url.pathname.slice("/trpc/".length)).split(",");
  const inputs = JSON.parse(url.searchParams.get("input") ?? "{}") as Record<string, unknown>;
  const answers = names.map((name, index) => {
    try {
      const handler = procedures[name];
      if (!handler) throw new StubRefusal("NOT_FOUND", 404, `No procedure ${name} in this test`);
      return { result: { data: handler(inputs[String(index)]) } };
    } catch (error) {
      const refusal = error instanceof StubRefusal ? error : new StubRefusal("INTERNAL", 500, String(error));
      return { error: { message: refusal.message, code: -32600, data: { code: refusal.code, httpStatus: refusal.httpStatus, errors: null } } };
    }
  });
  const failed = answers.some((answer) => "error" in answer);
  return { status: failed ? 207 : 200, headers: { "content-type": "application/json" }, body: JSON.stringify(answers) };
}

/**
 * The API the SPA talks to, for a component test: an HTTP server on a free port answering tRPC from
 * `procedures` and every other request from `other`, each request kept in `received`. The test's
 * page is put at its origin, so the SPA's same-origin requests (`/trpc`, `/frames/archive`) reach it
 * as they reach Meridian. `close` it after the test.
 */
export async function startApi(procedures: Procedures, other: (request: ReceivedRequest) => PlainAnswer = () => ({ status: 404 })) {
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const got = { method: request.method ?? "GET", path: request.url ?? "/", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(got);
      const url = new URL(got.path, "http://api.test");
      const answer = url.pathname.startsWith("/trpc/") ? trpcBatch(url, procedures) : other(got);
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${origin}/app/frames`);
  return {
    origin,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Renders `ui` as the app does: a query client of its own (no retries) and a router at `path`. */
export function renderInApp(ui: ReactNode, path = "/") {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>
    </QueryClientProvider>,
  );
}

/** An analysed frame as the search answers it; `frame` fields override the accepted defaults. */
export function foundFrame(id: string, fields: Omit<Partial<FoundFrame>, "frame"> & { frame?: Partial<FoundFrame["frame"]> } = {}): FoundFrame {
  const { frame, ...file } = fields;
  return {
    id,
    observationId: "obs-1",
    filename: `${id}.fits`,
    sizeBytes: 2_880,
    sha256: "0".repeat(64),
    contentType: "application/fits",
    kind: "image",
    previewOfId: null,
    deliveries: [],
    createdAt: "2026-11-20T21:30:00.000Z",
    ...file,
    frame: {
      status: "analysed",
      failure: null,
      header: {
        object: "M 31",
        dateObs: "2026-11-20T21:15:00.000Z",
        exposureSeconds: 120,
        filter: "Ha",
        binning: 1,
        width: 1024,
        height: 1024,
        ra: 10.68,
        dec: 41.27,
        imageType: "LIGHT",
      },
      targetName: "M 31",
      stars: 312,
      fwhmArcsec: 2.43,
      hfrArcsec: 1.3,
      eccentricity: 0.3,
      backgroundAdu: 1000,
      solution: { ra: 10.68, dec: 41.27, pixelScaleArcsec: 1.5, rotationDeg: 0, widthDeg: 0.4, heightDeg: 0.4 },
      solveFailure: null,
      pointingOffsetArcsec: 42.5,
      grade: "accepted",
      rejectedFor: [],
      analysedAt: "2026-11-20T21:31:00.000Z",
      ...frame,
    },
  };
}

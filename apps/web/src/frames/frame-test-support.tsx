import type { ReactNode } from "react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { vi } from "vitest";
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

/** A JSON answer (not `Response.json`, which not every DOM of the tests has). */
export const jsonResponse = (body: unknown, status = 200, contentType = "application/json") =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": contentType } });

type Procedures = Record<string, (input: unknown) => unknown>;

/**
 * The browser's `fetch` answering the SPA's tRPC batch requests (GET `/trpc/a,b?batch=1&input=…`)
 * from `procedures`, and every other request from `other`; each request is kept in `calls`.
 * Removed by `vi.unstubAllGlobals()` (in the test file's afterEach).
 */
export function stubFetch(procedures: Procedures, other: (request: Request) => Response | Promise<Response> = () => new Response(null, { status: 404 })) {
  const calls: Request[] = [];
  const fetch = vi.fn(async (resource: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(new URL(String(resource instanceof Request ? resource.url : resource), "http://meridian.test"), init);
    calls.push(request.clone());
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/trpc/")) return other(request);
    const names = decodeURIComponent(url.pathname.slice("/trpc/".length)).split(",");
    const inputs = JSON.parse(url.searchParams.get("input") ?? "{}") as Record<string, unknown>;
    const answers = names.map((name, index) => {
      try {
        const handler = procedures[name];
        if (!handler) throw new StubRefusal("NOT_FOUND", 404, `No stub for ${name}`);
        return { result: { data: handler(inputs[String(index)]) } };
      } catch (error) {
        const refusal = error instanceof StubRefusal ? error : new StubRefusal("INTERNAL", 500, String(error));
        return { error: { message: refusal.message, code: -32600, data: { code: refusal.code, httpStatus: refusal.httpStatus, errors: null } } };
      }
    });
    const failed = answers.find((answer) => "error" in answer);
    return jsonResponse(answers, failed ? 207 : 200);
  });
  vi.stubGlobal("fetch", fetch);
  return { calls };
}

/** Renders `ui` as the app does: a query client of its own (no retries) and a router. */
export function renderInApp(ui: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter>{ui}</MemoryRouter>
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

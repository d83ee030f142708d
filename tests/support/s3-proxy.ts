import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxiedRequest {
  method: string;
  /** The path, decoded: `/bucket/key`. */
  path: string;
  query: URLSearchParams;
  /** The status the client got; undefined while the request is under way. */
  status?: number;
}

export interface S3Proxy {
  url: string;
  /** Every request that came through, in order of arrival. */
  requests: ProxiedRequest[];
  /** Requests for which this answers true get 500 InternalError instead of reaching the store ("storage breaks"); null heals it. */
  failWhen(predicate: ((request: ProxiedRequest) => boolean) | null): void;
  /**
   * Requests for which this answers true get 501 NotImplemented, the S3 error unpatched s3rver and
   * some gateways answer to a call they lack (ListMultipartUploads); null gives the call back.
   */
  refuseAsUnimplemented(predicate: ((request: ProxiedRequest) => boolean) | null): void;
  close(): Promise<void>;
}

/** s3rver's own answer to a query it does not implement (lib/routes.js, before the project's patch). */
const unimplemented =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NotImplemented</Code>' +
  "<Message>A parameter you provided implies functionality that is not implemented</Message></Error>";
const injected = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>Injected by the test</Message></Error>';

/**
 * An HTTP proxy in front of an S3-protocol store that records what passes and can fail chosen
 * requests, for storage that breaks halfway through an upload. Headers go through unchanged,
 * so the client's signatures still hold.
 */
export async function startS3Proxy(target: string): Promise<S3Proxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  let failing: ((request: ProxiedRequest) => boolean) | null = null;
  let refusing: ((request: ProxiedRequest) => boolean) | null = null;
  const requests: ProxiedRequest[] = [];
  const server = http.createServer((incoming, outgoing) => {
    const url = new URL(incoming.url ?? "/", "http://proxy");
    const request: ProxiedRequest = { method: incoming.method ?? "GET", path: decodeURIComponent(url.pathname), query: url.searchParams };
    requests.push(request);
    outgoing.on("finish", () => (request.status = outgoing.statusCode));
    if (failing?.(request)) {
      incoming.resume();
      outgoing.writeHead(500, { "content-type": "application/xml" }).end(injected);
      return;
    }
    if (refusing?.(request)) {
      incoming.resume();
      outgoing.writeHead(501, { "content-type": "application/xml", "x-amz-error-code": "NotImplemented" }).end(unimplemented);
      return;
    }
    const forwarded = http.request(
      { agent, host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", (error) => outgoing.destroy(error));
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failWhen(predicate) {
      failing = predicate;
    },
    refuseAsUnimplemented(predicate) {
      refusing = predicate;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}

/** S3 request kinds, by method and query, as the proxy saw them. */
export const isCreateMultipartUpload = (request: ProxiedRequest) => request.method === "POST" && request.query.has("uploads");
export const isUploadPart = (request: ProxiedRequest) => request.method === "PUT" && request.query.has("uploadId") && request.query.has("partNumber");
export const isAbortMultipartUpload = (request: ProxiedRequest) => request.method === "DELETE" && request.query.has("uploadId");
export const isListMultipartUploads = (request: ProxiedRequest) => request.method === "GET" && request.query.has("uploads");
export const isListParts = (request: ProxiedRequest) => request.method === "GET" && request.query.has("uploadId");

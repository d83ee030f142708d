import { createHash, createHmac, timingSafeEqual, type BinaryLike } from "node:crypto";
import { SignatureV4 } from "@smithy/signature-v4";

/** What the check reads of a request, as Node's HTTP server received it (header names in lower case). */
export interface ReceivedRequest {
  method: string;
  /** The path and query as sent: `/bucket/key?uploads`. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export type SignatureRefusal = { code: "AccessDenied" | "InvalidAccessKeyId" | "SignatureDoesNotMatch" | "RequestTimeTooSkewed"; message: string };

/** As S3 allows: a request signed more than this far from now is refused, so a request seen once cannot be sent again later. */
const MAX_SKEW_MS = 15 * 60 * 1000;
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** What SignatureV4 hands its hashes. */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const binary = (data: SourceData): BinaryLike =>
  typeof data === "string" ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);

/** SHA-256, and its HMAC when given a key, in the shape SignatureV4 takes. */
export class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash("sha256") : createHmac("sha256", binary(secret));
  }
  update(data: SourceData) {
    this.hash.update(binary(data));
  }
  digest() {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset() {
    throw new Error("not used by signing");
  }
}

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(",") : value);

/**
 * Whether a request carries a valid AWS Signature Version 4 (the Authorization header, as the
 * AWS SDK sends it) made with `credentials`. The signature is computed again over the headers the
 * client says it signed, by the same signer the SDK uses, and compared in constant time. The body
 * is taken as the client hashed it (`x-amz-content-sha256`): what is checked is that the sender
 * holds the secret. Presigned URLs and Signature Version 2 are refused: nothing here makes them.
 */
export async function refusalOfSignature(
  request: ReceivedRequest,
  credentials: { accessKeyId: string; secretAccessKey: string },
  now = Date.now(),
): Promise<SignatureRefusal | undefined> {
  const authorization = headerValue(request.headers.authorization);
  const match = authorization ? AUTHORIZATION.exec(authorization) : null;
  if (!match) return { code: "AccessDenied", message: "Requests to this store must be signed (AWS Signature Version 4, in the Authorization header)." };
  const [, accessKeyId, day, region, service, signedHeaderList, signature] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) return { code: "InvalidAccessKeyId", message: "The access key ID is not this store's." };
  const amzDate = AMZ_DATE.exec(headerValue(request.headers["x-amz-date"]) ?? "");
  const signedAt = amzDate ? Date.UTC(+amzDate[1]!, +amzDate[2]! - 1, +amzDate[3]!, +amzDate[4]!, +amzDate[5]!, +amzDate[6]!) : NaN;
  if (!amzDate || `${amzDate[1]}${amzDate[2]}${amzDate[3]}` !== day)
    return { code: "AccessDenied", message: "The request's x-amz-date is missing or not its signature's day." };
  if (Math.abs(now - signedAt) > MAX_SKEW_MS) return { code: "RequestTimeTooSkewed", message: "The request was signed more than 15 minutes from now." };
  const signedHeaders = signedHeaderList!.split(";");
  if (!signedHeaders.includes("host") || !signedHeaders.includes("x-amz-content-sha256")) {
    return { code: "AccessDenied", message: "The signature must cover the host and x-amz-content-sha256 headers." };
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = headerValue(request.headers[name]) ?? "";

  const at = request.url.indexOf("?");
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(at < 0 ? "" : request.url.slice(at + 1))) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  // S3 signs the path as sent, not escaped again (the SDK's S3 client signs it so too).
  const signer = new SignatureV4({ credentials, region: region!, service: service!, sha256: Sha256, uriEscapePath: false });
  const expected = await signer.sign(
    { method: request.method, protocol: "http:", hostname: headers.host!, path: at < 0 ? request.url : request.url.slice(0, at), query, headers },
    { signingDate: new Date(signedAt), signableHeaders: new Set(signedHeaders) },
  );
  const recomputed = /Signature=([0-9a-f]{64})$/.exec(headerValue(expected.headers.authorization) ?? "")?.[1] ?? "";
  const same = recomputed.length === signature!.length && timingSafeEqual(Buffer.from(recomputed), Buffer.from(signature!));
  return same ? undefined : { code: "SignatureDoesNotMatch", message: "The request signature does not match the one calculated with this store's key." };
}

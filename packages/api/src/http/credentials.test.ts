import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { cookieAllowed, expectedOrigin, nodeRequestHeaders, originEvidence, readCredential, type RequestHeaders } from "./credentials";

const request = (headers: Record<string, string>, encrypted = false): RequestHeaders => ({ header: (name) => headers[name], encrypted });
const noPublicUrl = { PUBLIC_URL: undefined };

describe("readCredential", () => {
  it.each([
    ["Bearer mst_a", { token: "mst_a", source: "bearer", observatoryKey: false }],
    ["bearer mst_a", { token: "mst_a", source: "bearer", observatoryKey: false }],
    ["BEARER \t mst_a  ", { token: "mst_a", source: "bearer", observatoryKey: false }],
    ["Bearer mok_a", { token: "mok_a", source: "bearer", observatoryKey: true }],
  ])("reads %j as a bearer token", (authorization, credential) => {
    expect(readCredential(request({ authorization, cookie: "session=mst_cookie" }))).toEqual(credential);
  });

  it.each(["Bearer", "Bearer a b", "Basic dXNlcjpwYXNz", "Token mst_a", "Bearermst_a"])("falls back to the cookie when the header is %j", (authorization) => {
    expect(readCredential(request({ authorization, cookie: "session=mst_cookie" }))).toEqual({ token: "mst_cookie", source: "cookie", observatoryKey: false });
  });

  it.each([
    ["session=mst_a", "mst_a"],
    ["theme=%E0%A4%A; session=mst_a; broken; other=1", "mst_a"],
    ['session="mst_a"', "mst_a"],
    ["  session = mst_a ;", "mst_a"],
    ["session=mst_a; session=mst_b", "mst_a"],
    ["session=mst%5Fa", "mst_a"],
  ])("reads the session cookie from %j", (cookie, token) => {
    expect(readCredential(request({ cookie }))).toEqual({ token, source: "cookie", observatoryKey: false });
  });

  it.each(["", "session", "session=", "sessions=mst_a", "xsession=mst_a", "session=a\\b", ";;=;", "session=mok_a"])(
    "finds no credential in the cookie %j",
    (cookie) => {
      expect(readCredential(request({ cookie }))).toBeUndefined();
    },
  );
});

describe("expectedOrigin", () => {
  it("is PUBLIC_URL's origin when set, whatever the request says", () => {
    expect(expectedOrigin(request({ host: "elsewhere:1" }, true), { PUBLIC_URL: "https://Meridian.example:443/app/" })).toBe("https://meridian.example");
  });

  it.each([
    ["127.0.0.1:3000", false, "http://127.0.0.1:3000"],
    ["Meridian.Example", false, "http://meridian.example"],
    ["meridian.example:80", false, "http://meridian.example"],
    ["meridian.example:443", true, "https://meridian.example"],
    ["meridian.example:8443", true, "https://meridian.example:8443"],
    ["[::1]:3000", false, "http://[::1]:3000"],
  ])("is the scheme of the connection and the Host %j (TLS %j)", (host, encrypted, origin) => {
    expect(expectedOrigin(request({ host }, encrypted), noPublicUrl)).toBe(origin);
  });

  it.each(["", "evil.example@127.0.0.1", "127.0.0.1/evil", "127.0.0.1?x", "127.0.0.1#x", "a b", "127.0.0.1\\x", "[::1"])(
    "is none for the Host %j, so nothing is same-origin with it",
    (host) => {
      expect(expectedOrigin(request({ host }), noPublicUrl)).toBeUndefined();
      expect(originEvidence(request({ host, origin: "http://127.0.0.1" }), noPublicUrl)).toBe("cross-origin");
    },
  );
});

describe("originEvidence and cookieAllowed", () => {
  const site = { host: "127.0.0.1:3000" };
  it.each([
    [{}, "none", { read: true, write: false, socket: true }],
    [{ origin: "http://127.0.0.1:3000" }, "same-origin", { read: true, write: true, socket: true }],
    [{ origin: "https://127.0.0.1:3000" }, "cross-origin", { read: true, write: false, socket: false }],
    [{ origin: "http://127.0.0.1:3000", referer: "https://evil.example/" }, "same-origin", { read: true, write: true, socket: true }],
    [{ "sec-fetch-site": "same-origin", referer: "https://evil.example/" }, "same-origin", { read: true, write: true, socket: true }],
    [{ "sec-fetch-site": "none" }, "cross-origin", { read: true, write: false, socket: false }],
    [{ referer: "http://127.0.0.1:3000/app/x?y" }, "same-origin", { read: true, write: true, socket: true }],
    [{ referer: "::" }, "cross-origin", { read: true, write: false, socket: false }],
  ])("%j is %s", (headers, evidence, allowed) => {
    const incoming = request({ ...site, ...headers });
    expect(originEvidence(incoming, noPublicUrl)).toBe(evidence);
    expect({
      read: cookieAllowed(incoming, noPublicUrl, "read"),
      write: cookieAllowed(incoming, noPublicUrl, "write"),
      socket: cookieAllowed(incoming, noPublicUrl, "socket"),
    }).toEqual(allowed);
  });
});

describe("nodeRequestHeaders", () => {
  it("reads Node's parsed headers case-insensitively and the connection's TLS", () => {
    const incoming = { headers: { authorization: "Bearer mst_a", "x-list": ["a", "b"] }, socket: { encrypted: true } } as unknown as IncomingMessage;
    const headers = nodeRequestHeaders(incoming);
    expect([headers.header("Authorization"), headers.header("x-list"), headers.header("cookie"), headers.encrypted]).toEqual([
      "Bearer mst_a",
      "a, b",
      undefined,
      true,
    ]);
    expect(nodeRequestHeaders({ headers: {}, socket: {} } as unknown as IncomingMessage).encrypted).toBe(false);
  });
});

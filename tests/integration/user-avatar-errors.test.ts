import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  avatarOf,
  bytesOf,
  createAccount,
  describeAuthSuite,
  expectProblem,
  images,
  pngOfSize,
  roomyLimits,
  uploadAvatar,
  type Account,
} from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let owner: Account;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
  owner = await createAccount(server);
});
afterAll(() => server?.stop());

describeAuthSuite(() => server, {
  method: "PUT",
  path: "/api/v1/user/avatar",
  prepare: () => ({ path: "/api/v1/user/avatar", body: images.png, headers: { "content-type": "image/png" } }),
  success: 200,
});
describeAuthSuite(() => server, {
  method: "GET",
  path: "/api/v1/users/{id}/avatar",
  prepare: async (target, account, token) => {
    const response = await uploadAvatar(target, token, images.gif, "image/gif");
    expect(response.status).toBe(200);
    return { path: `/api/v1/users/${account.id}/avatar` };
  },
  success: 200,
});

describe("avatar errors", () => {
  it.each([
    ["plain text", Buffer.from("hello, world"), "image/png"],
    ["JSON", Buffer.from('{"image": true}'), "application/json"],
    ["an SVG", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), "image/svg+xml"],
    ["a WebP", Buffer.from("RIFF\x1a\x00\x00\x00WEBPVP8 ", "latin1"), "image/webp"],
    ["a PDF", Buffer.from("%PDF-1.7\n"), "application/pdf"],
    ["a truncated PNG signature", images.png.subarray(0, 4), "image/png"],
    ["a truncated GIF signature", images.gif.subarray(0, 5), "image/gif"],
    ["two JPEG bytes", images.jpeg.subarray(0, 2), "image/jpeg"],
    ["an empty body", Buffer.alloc(0), "image/png"],
  ])("answers 415 UNSUPPORTED_MEDIA_TYPE for %s", async (_label, body, contentType) => {
    await expectProblem(await uploadAvatar(server, owner.token, body, contentType), 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("answers 413 PAYLOAD_TOO_LARGE for an image over 2 MB", async () => {
    await expectProblem(await uploadAvatar(server, owner.token, pngOfSize(2 * 1024 * 1024 + 1)), 413, "PAYLOAD_TOO_LARGE");
  });

  it("answers 413 for an image over 2 MB sent without Content-Length (chunked)", async () => {
    const chunk = pngOfSize(256 * 1024);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 9) return controller.close();
        sent += 1;
        controller.enqueue(new Uint8Array(chunk));
      },
    });
    const response = await uploadAvatar(server, owner.token, stream, "image/png", { duplex: "half" } as RequestInit);
    await expectProblem(response, 413, "PAYLOAD_TOO_LARGE");
  });

  it("keeps the previous avatar after a refused upload", async () => {
    const account = await createAccount(server);
    expect((await uploadAvatar(server, account.token, images.gif, "image/gif")).status).toBe(200);
    await expectProblem(await uploadAvatar(server, account.token, Buffer.from("not an image")), 415, "UNSUPPORTED_MEDIA_TYPE");
    await expectProblem(await uploadAvatar(server, account.token, pngOfSize(2 * 1024 * 1024 + 10)), 413, "PAYLOAD_TOO_LARGE");
    const served = await avatarOf(server, account.id, owner.token);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/gif");
    expect((await bytesOf(served)).equals(images.gif)).toBe(true);
  });

  it("answers 404 NOT_FOUND for a user without an avatar", async () => {
    const bare = await createAccount(server);
    await expectProblem(await avatarOf(server, bare.id, owner.token), 404, "NOT_FOUND");
  });

  it("answers 404 NOT_FOUND for an unknown user", async () => {
    await expectProblem(await avatarOf(server, "usr_nobody", owner.token), 404, "NOT_FOUND");
  });

  it("answers 400 for a user id with a NUL character", async () => {
    await expectProblem(await avatarOf(server, "%00", owner.token), 400, "VALIDATION_FAILED");
  });

  it("answers 405 for POST and DELETE on the avatar", async () => {
    const post = await server.request("/api/v1/user/avatar", { method: "POST", token: owner.token, body: images.png });
    await expectProblem(post, 405, "METHOD_NOT_ALLOWED");
    expect(post.headers.get("allow")).toBe("PUT");
    const remove = await server.request(`/api/v1/users/${owner.id}/avatar`, { method: "DELETE", token: owner.token });
    await expectProblem(remove, 405, "METHOD_NOT_ALLOWED");
    expect(remove.headers.get("allow")).toBe("GET, HEAD");
  });
});

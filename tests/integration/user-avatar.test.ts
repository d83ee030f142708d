import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { avatarOf, bytesOf, createAccount, images, pngOfSize, roomyLimits, uploadAvatar, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let viewer: Account;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
  viewer = await createAccount(server);
});
afterAll(() => server?.stop());

/** The avatar of `userId`, as seen by another user unless `token` says who. */
const download = (userId: string, token = viewer.token) => avatarOf(server, userId, token);

describe("PUT /api/v1/user/avatar and GET /api/v1/users/{id}/avatar", () => {
  it.each([
    ["PNG", images.png, "image/png"],
    ["JPEG", images.jpeg, "image/jpeg"],
    ["GIF", images.gif, "image/gif"],
  ])("stores a %s and serves the same bytes with its content type", async (_kind, image, contentType) => {
    const owner = await createAccount(server);
    const response = await uploadAvatar(server, owner.token, image, contentType);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({ avatarUrl: expect.stringMatching(new RegExp(`^/api/v1/users/${owner.id}/avatar`)), contentType, sizeBytes: image.length });

    const served = await download(owner.id);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe(contentType);
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("x-request-id")).toBeTruthy();
    expect((await bytesOf(served)).equals(image)).toBe(true);
  });

  it("detects a JPEG sent as image/png by its content", async () => {
    const owner = await createAccount(server);
    const response = await uploadAvatar(server, owner.token, images.jpeg, "image/png");
    expect(response.status).toBe(200);
    expect((await response.json()).contentType).toBe("image/jpeg");
    const served = await download(owner.id);
    expect(served.headers.get("content-type")).toBe("image/jpeg");
    expect((await bytesOf(served)).equals(images.jpeg)).toBe(true);
  });

  it.each(["application/octet-stream", "text/plain", "application/json"])("detects the image whatever the declared type (%s)", async (contentType) => {
    const owner = await createAccount(server);
    const response = await uploadAvatar(server, owner.token, images.gif, contentType);
    expect(response.status).toBe(200);
    expect((await response.json()).contentType).toBe("image/gif");
  });

  it("accepts an image of exactly 2 MB", async () => {
    const owner = await createAccount(server);
    const image = pngOfSize(2 * 1024 * 1024);
    const response = await uploadAvatar(server, owner.token, image, "image/png");
    expect(response.status).toBe(200);
    expect((await response.json()).sizeBytes).toBe(2 * 1024 * 1024);
    const served = await download(owner.id);
    expect(served.headers.get("content-length")).toBe(String(2 * 1024 * 1024));
    expect((await bytesOf(served)).equals(image)).toBe(true);
  });

  it("replaces the previous avatar", async () => {
    const owner = await createAccount(server);
    const first = await (await uploadAvatar(server, owner.token, images.png, "image/png")).json();
    const second = await (await uploadAvatar(server, owner.token, images.gif, "image/gif")).json();
    expect(second.contentType).toBe("image/gif");
    expect(second.avatarUrl).toMatch(new RegExp(`^/api/v1/users/${owner.id}/avatar`));
    expect(typeof first.avatarUrl).toBe("string");
    const served = await download(owner.id);
    expect(served.headers.get("content-type")).toBe("image/gif");
    expect((await bytesOf(served)).equals(images.gif)).toBe(true);
  });

  it("serves the avatar at the avatarUrl that /auth/me and the profile report", async () => {
    const owner = await createAccount(server);
    const { avatarUrl } = await (await uploadAvatar(server, owner.token, images.png, "image/png")).json();
    const me = await (await server.request("/api/v1/auth/me", { token: owner.token })).json();
    const profile = await (await server.request("/api/v1/user/profile", { token: owner.token })).json();
    expect(me.avatarUrl).toBe(avatarUrl);
    expect(profile.avatarUrl).toBe(avatarUrl);
    const served = await server.request(avatarUrl, { token: viewer.token });
    expect(served.status).toBe(200);
    expect((await bytesOf(served)).equals(images.png)).toBe(true);
  });

  it("lets any signed-in user, the owner included, read an avatar", async () => {
    const owner = await createAccount(server);
    await uploadAvatar(server, owner.token, images.png, "image/png");
    expect((await download(owner.id, owner.token)).status).toBe(200);
    expect((await download(owner.id, viewer.token)).status).toBe(200);
  });

  it("keeps each user's avatar apart", async () => {
    const first = await createAccount(server);
    const second = await createAccount(server);
    await uploadAvatar(server, first.token, images.png, "image/png");
    await uploadAvatar(server, second.token, images.gif, "image/gif");
    expect((await bytesOf(await download(first.id))).equals(images.png)).toBe(true);
    expect((await bytesOf(await download(second.id))).equals(images.gif)).toBe(true);
  });
});

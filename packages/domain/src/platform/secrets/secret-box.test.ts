import { createDecipheriv, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSecretBox, loadSecretsKey } from "./secret-box";

const key = randomBytes(32);
const box = createSecretBox(key);

describe("createSecretBox", () => {
  it.each(["", "s3cr3t", '{"secretAccessKey":"abc"}', "ünïcödé 🔭", "x".repeat(100_000)])("opens what it sealed (%#)", (plaintext) => {
    const sealed = box.seal(plaintext);
    expect(box.open(sealed)).toBe(plaintext);
    if (plaintext.length > 0) expect(sealed).not.toContain(plaintext);
  });

  it("is AES-256-GCM with a 96-bit nonce, readable by any implementation of it", () => {
    const sealed = box.seal("interoperable");
    const [version, nonce, tag, ciphertext] = sealed.split(".");
    expect(version).toBe("v1");
    expect(Buffer.from(nonce!, "base64url")).toHaveLength(12);
    expect(Buffer.from(tag!, "base64url")).toHaveLength(16);
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce!, "base64url"));
    decipher.setAuthTag(Buffer.from(tag!, "base64url"));
    expect(Buffer.concat([decipher.update(Buffer.from(ciphertext!, "base64url")), decipher.final()]).toString("utf8")).toBe("interoperable");
  });

  it("uses a fresh nonce every time: sealing the same text twice gives different boxes", () => {
    const boxes = Array.from({ length: 50 }, () => box.seal("same secret"));
    expect(new Set(boxes).size).toBe(50);
    expect(new Set(boxes.map((sealed) => sealed.split(".")[1])).size).toBe(50);
    for (const sealed of boxes) expect(box.open(sealed)).toBe("same secret");
  });

  const tamper = (sealed: string, part: number) => {
    const parts = sealed.split(".");
    const bytes = Buffer.from(parts[part]!, "base64url");
    bytes[0] = bytes[0]! ^ 0x01;
    parts[part] = bytes.toString("base64url");
    return parts.join(".");
  };

  it.each([
    ["the nonce", 1],
    ["the tag", 2],
    ["the ciphertext", 3],
  ])("detects a change to %s", (_label, part) => {
    const sealed = box.seal("do not touch");
    expect(() => box.open(tamper(sealed, part))).toThrow();
  });

  it("refuses a box sealed with another key, a truncated box and other versions", () => {
    const sealed = box.seal("mine");
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open(sealed.split(".").slice(0, 3).join("."))).toThrow();
    expect(() => box.open(sealed.replace(/^v1\./, "v2."))).toThrow();
    expect(() => box.open("plaintext")).toThrow();
    const [version, nonce, tag, ciphertext] = sealed.split(".");
    expect(() => box.open([version, nonce, tag, ciphertext!.slice(0, -2)].join("."))).toThrow();
  });

  it("needs a 32-byte key", () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow();
    expect(() => createSecretBox(randomBytes(33))).toThrow();
  });
});

describe("loadSecretsKey", () => {
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-secrets-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })));
  });

  it("takes SECRETS_KEY as 64 hex digits, as base64 of 32 bytes, or hashes a passphrase", async () => {
    const dataDir = await tempDir();
    const raw = randomBytes(32);
    expect((await loadSecretsKey({ secretsKey: raw.toString("hex"), dataDir })).equals(raw)).toBe(true);
    expect((await loadSecretsKey({ secretsKey: raw.toString("base64"), dataDir })).equals(raw)).toBe(true);
    const fromPassphrase = await loadSecretsKey({ secretsKey: "correct horse battery staple", dataDir });
    expect(fromPassphrase).toHaveLength(32);
    expect((await loadSecretsKey({ secretsKey: "correct horse battery staple", dataDir })).equals(fromPassphrase)).toBe(true);
    // With SECRETS_KEY nothing is written to DATA_DIR.
    expect(await fs.readdir(dataDir)).toEqual([]);
  });

  it("without SECRETS_KEY generates a key once into DATA_DIR, private to the owner, and reuses it", async () => {
    const dataDir = path.join(await tempDir(), "nested", "data");
    const first = await loadSecretsKey({ secretsKey: undefined, dataDir });
    expect(first).toHaveLength(32);
    const file = path.join(dataDir, "secrets.key");
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const second = await loadSecretsKey({ secretsKey: undefined, dataDir });
    expect(second.equals(first)).toBe(true);
    // What one process sealed, another process with the same DATA_DIR opens.
    expect(createSecretBox(second).open(createSecretBox(first).seal("shared"))).toBe("shared");
  });

  it("gives processes starting at the same moment one and the same key", async () => {
    // A reader must never see the key file half written; repeated, as such races are rare.
    for (let round = 0; round < 100; round += 1) {
      const dataDir = await tempDir();
      const keys = await Promise.all([0, 1, 2, 3, 4, 5].map(() => loadSecretsKey({ secretsKey: undefined, dataDir })));
      expect(new Set(keys.map((k) => k.toString("hex"))).size).toBe(1);
      expect((await fs.readdir(dataDir)).sort()).toEqual(["secrets.key"]);
    }
  });
});

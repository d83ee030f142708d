import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

const VERSION = "v1";

/** AES-256-GCM with a random 96-bit nonce per secret; the output is `v1.<nonce>.<tag>.<ciphertext>`. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error("the secrets key must be 32 bytes");
  return {
    seal(plaintext) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [VERSION, nonce.toString("base64url"), cipher.getAuthTag().toString("base64url"), ciphertext.toString("base64url")].join(".");
    },
    open(sealed) {
      const [version, nonce, tag, ciphertext] = sealed.split(".");
      if (version !== VERSION || !nonce || !tag || ciphertext === undefined) throw new Error("not a sealed secret");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}

/**
 * SECRETS_KEY when set (32 bytes as base64 or hex, or any passphrase, which is hashed);
 * otherwise a key generated once into DATA_DIR/secrets.key. Every process must share it.
 */
export async function loadSecretsKey(options: { secretsKey: string | undefined; dataDir: string }): Promise<Buffer> {
  if (options.secretsKey) return decodeKey(options.secretsKey);
  const file = path.join(options.dataDir, "secrets.key");
  await fs.mkdir(options.dataDir, { recursive: true });
  // Written whole to a file of its own, then linked into place: a process starting at the same
  // moment either finds no key file or a complete one, never an empty one being written.
  const candidate = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  await fs.writeFile(candidate, randomBytes(32).toString("base64"), { flag: "wx", mode: 0o600 });
  try {
    await fs.link(candidate, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    await fs.rm(candidate, { force: true });
  }
  return decodeKey((await fs.readFile(file, "utf8")).trim());
}

function decodeKey(value: string): Buffer {
  if (/^[0-9a-f]{64}$/i.test(value)) return Buffer.from(value, "hex");
  const base64 = Buffer.from(value, "base64");
  if (base64.length === 32 && /^[A-Za-z0-9+/_-]+=*$/.test(value)) return base64;
  return createHash("sha256").update(value).digest();
}

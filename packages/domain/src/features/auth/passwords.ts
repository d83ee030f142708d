import { hash, verify } from "@node-rs/argon2";

// argon2id with OWASP's baseline parameters (19 MiB, 2 passes).
const options = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => hash(password, options);

export async function verifyPassword(options: { passwordHash: string; password: string }): Promise<boolean> {
  try {
    return await verify(options.passwordHash, options.password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/** Spends the same time as a real check so that response time does not reveal unknown emails. */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword("meridian-dummy-password");
  await verifyPassword({ passwordHash: await dummyHash, password });
}

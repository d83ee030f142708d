import type { Env } from "@meridian/config";
import { hash, verify } from "@node-rs/argon2";

/** argon2id: OWASP's baseline parameters (19 MiB, 2 passes), or its smallest cost where tests ask for it (env.ts). */
const costs = {
  owasp: { memoryCost: 19_456, timeCost: 2, parallelism: 1 },
  "fast-for-tests": { memoryCost: 8, timeCost: 1, parallelism: 1 },
} as const satisfies Record<Env["PASSWORD_HASHING"], object>;

type Hashing = { env: Pick<Env, "PASSWORD_HASHING"> };

export const hashPassword = (options: Hashing & { password: string }) => hash(options.password, costs[options.env.PASSWORD_HASHING]);

export async function verifyPassword(options: { passwordHash: string; password: string }): Promise<boolean> {
  try {
    return await verify(options.passwordHash, options.password);
  } catch {
    return false;
  }
}

const dummyHashes = new Map<Env["PASSWORD_HASHING"], Promise<string>>();
/** Spends the same time as a real check so that response time does not reveal unknown emails. */
export async function burnPasswordCheck(options: Hashing & { password: string }): Promise<void> {
  const cost = options.env.PASSWORD_HASHING;
  if (!dummyHashes.has(cost)) dummyHashes.set(cost, hashPassword({ env: options.env, password: "meridian-dummy-password" }));
  await verifyPassword({ passwordHash: await dummyHashes.get(cost)!, password: options.password });
}

import { describe, expect, it } from "vitest";
import { burnPasswordCheck, hashPassword, verifyPassword } from "./passwords";

describe("password hashes", () => {
  it("are argon2id at OWASP's baseline (19 MiB, 2 passes) outside tests, and each cost verifies its own", async () => {
    const owasp = await hashPassword({ env: { PASSWORD_HASHING: "owasp" }, password: "correct horse battery" });
    expect(owasp).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const cheap = await hashPassword({ env: { PASSWORD_HASHING: "fast-for-tests" }, password: "correct horse battery" });
    expect(cheap).toMatch(/^\$argon2id\$v=19\$m=8,t=1,p=1\$/);
    for (const passwordHash of [owasp, cheap]) {
      expect(await verifyPassword({ passwordHash, password: "correct horse battery" })).toBe(true);
      expect(await verifyPassword({ passwordHash, password: "wrong horse battery" })).toBe(false);
    }
  });

  it("burn a check for an unknown account without throwing, whatever the cost", async () => {
    for (const PASSWORD_HASHING of ["owasp", "fast-for-tests"] as const)
      await expect(burnPasswordCheck({ env: { PASSWORD_HASHING }, password: "anything" })).resolves.toBeUndefined();
  });
});

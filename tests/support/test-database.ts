import { randomBytes } from "node:crypto";
import { connectDatabase } from "@meridian/db";
import { inject } from "vitest";

/** A fresh database cloned from the migrated template: isolated per test file, ready in milliseconds. */
export async function createTestDatabase(): Promise<{ url: string; name: string }> {
  const baseUrl = inject("postgresUrl");
  const name = `test_${randomBytes(6).toString("hex")}`;
  const admin = connectDatabase(baseUrl, { max: 1 });
  try {
    await admin.sql.unsafe(`create database ${name} template ${inject("templateDatabase")}`);
  } finally {
    await admin.close();
  }
  return { url: baseUrl.replace(/\/postgres$/, `/${name}`), name };
}

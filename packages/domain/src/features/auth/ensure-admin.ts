import { tables, usersCollection } from "@meridian/db";
import { eq } from "drizzle-orm";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { isUniqueViolation } from "../../platform/postgres-errors";
import { inTransaction } from "../../platform/transaction";
import { hashPassword } from "./passwords";
import { defaultNotificationPreferences } from "./signup";

/**
 * Makes sure ADMIN_EMAIL exists and is a server admin. An existing account keeps its password:
 * the variable seeds the first login, it does not reset passwords on every start.
 */
export async function ensureServerAdmin(options: { deps: Deps; email: string; password: string }): Promise<"created" | "promoted" | "unchanged"> {
  const { deps } = options;
  const emailLower = options.email.trim().toLowerCase();
  const existing = await usersCollection.findOne(deps.db, eq(tables.users.emailLower, emailLower));
  if (existing) {
    if (existing.doc.roles.includes("serverAdmin")) return "unchanged";
    await inTransaction(deps, async (t) => {
      await usersCollection.update(t.tx, existing.id, (doc) => ({ ...doc, roles: [...new Set([...doc.roles, "serverAdmin" as const])] }));
      await invalidateCaches({ t, change: { kind: "user", userId: existing.id } });
    });
    return "promoted";
  }
  try {
    await usersCollection.insert(deps.db, {
      email: options.email.trim(),
      name: "Administrator",
      passwordHash: await hashPassword({ env: deps.env, password: options.password }),
      roles: ["serverAdmin"],
      notificationPreferences: defaultNotificationPreferences,
      avatar: null,
    });
    return "created";
  } catch (error) {
    // Another process created it at the same moment.
    if (isUniqueViolation({ error })) return ensureServerAdmin(options);
    throw error;
  }
}

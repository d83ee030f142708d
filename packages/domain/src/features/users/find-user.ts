import { tables, usersCollection, type Executor } from "@meridian/db";
import { eq, inArray, sql } from "drizzle-orm";
import { AppError } from "../../platform/errors";

/** Exact, case-insensitive email match only: nothing here lets anyone enumerate users by prefix. */
export async function findUserByEmail(options: { db: Executor; email: string }) {
  const user = await usersCollection.findOne(options.db, eq(tables.users.emailLower, options.email.trim().toLowerCase()));
  if (!user) throw new AppError("USER_NOT_FOUND", "No user has this email address");
  return user;
}

export async function loadUsersById(options: { db: Executor; ids: string[] }) {
  const { db, ids } = options;
  if (ids.length === 0) return new Map<string, Awaited<ReturnType<typeof usersCollection.get>> & object>();
  const rows = await db
    .select()
    .from(tables.users)
    .where(inArray(tables.users.id, [...new Set(ids)]));
  return new Map(rows.map((row) => [row.id, row]));
}

/** Every server administrator (the audience of system notices); the partial index `users_server_admin_idx` finds them. */
export const findServerAdmins = (db: Executor) => usersCollection.findMany(db, sql`${tables.users.doc}->'roles' ? 'serverAdmin'`, undefined, 1000);

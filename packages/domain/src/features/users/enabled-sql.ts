import { sql } from "drizzle-orm";

/** The `users` row under `alias` is enabled: `disabled` is optional in the document, and absent means enabled. */
export const enabledUser = (alias: string) => sql`not coalesce((${sql.raw(alias)}.doc->>'disabled')::boolean, false)`;

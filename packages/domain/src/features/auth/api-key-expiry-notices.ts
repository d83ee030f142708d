import { apiKeysCollection } from "@meridian/db";
import { sql, type SQL } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { appLink } from "../../platform/email/app-link";
import { enqueueEmail } from "../../platform/email/outbox";
import { inTransaction } from "../../platform/transaction";
import { enabledUser } from "../users";

/** How long before a key expires its owner is told, as GitLab does for its access tokens. */
export const API_KEY_EXPIRY_NOTICE_DAYS = 7;
/** Owners read per query. */
const USERS_PER_BATCH = 100;
/** The most owners one run mails: a backlog (a restore, a long outage) is spread over the hourly runs, which find the rest still unwarned. */
const USERS_PER_RUN = 1000;

/** A live key of `alias` expiring within the notice window, not warned yet; keys without an expiry or expired already are never warned. */
function dueForNotice(alias: string, now: string): SQL {
  const key = sql.raw(alias);
  const expiresAt = sql`(${key}.doc->>'expiresAt')::timestamptz`;
  return sql`${key}.doc->>'revokedAt' is null and ${key}.doc->>'expiryNoticeAt' is null
    and ${expiresAt} > ${now}::timestamptz and ${expiresAt} <= ${now}::timestamptz + make_interval(days => ${API_KEY_EXPIRY_NOTICE_DAYS})`;
}

/** A moment as the email shows it: to the minute, in UTC, named, since the reader's zone is unknown. */
const inUtc = (iso: string) => `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/**
 * Emails each enabled user whose live keys expire within `API_KEY_EXPIRY_NOTICE_DAYS` one message listing them, and marks
 * those keys warned (`expiryNoticeAt`) in the transaction that writes the message to the outbox: a crash leaves both or
 * neither, so no key is warned twice or marked unwarned. The owner's row is taken FOR UPDATE SKIP LOCKED, so concurrent
 * runs never split one user's keys into two messages or send one twice; an owner held elsewhere waits for the next run.
 * Run by the hourly `api_key_expiry_notices` job.
 */
export async function sendApiKeyExpiryNotices(options: { deps: Deps; now: Date }): Promise<{ users: number; keys: number }> {
  const { deps } = options;
  const now = options.now.toISOString();
  const link = appLink({ deps, path: "/api-keys" });
  let users = 0;
  let keys = 0;
  let cursor = "";
  for (let batch = 0; batch < USERS_PER_RUN / USERS_PER_BATCH; batch += 1) {
    const owners = await deps.db.execute<{ user_id: string }>(sql`
      select distinct k.user_id from api_keys k join users u on u.id = k.user_id
       where k.user_id > ${cursor} and ${dueForNotice("k", now)} and ${enabledUser("u")}
       order by k.user_id limit ${USERS_PER_BATCH}`);
    for (const { user_id: userId } of owners) {
      const warned = await inTransaction(deps, async (t) => {
        const [owner] = await t.tx.execute<{ email: string; name: string }>(sql`
          select u.doc->>'email' as email, u.doc->>'name' as name from users u
           where u.id = ${userId} and ${enabledUser("u")} for update skip locked`);
        if (!owner) return 0;
        // Re-read under the owner's lock: a key revoked or already warned since the batch was read drops out here.
        const due = await apiKeysCollection.patch<{ name: string; prefix: string; expires_at: string }>(
          t.tx,
          sql`a.user_id = ${userId} and ${dueForNotice("a", now)}`,
          { expiryNoticeAt: now },
          { returning: sql`a.doc->>'name' as name, a.doc->>'prefix' as prefix, a.doc->>'expiresAt' as expires_at` },
        );
        if (due.length === 0) return 0;
        const listed = [...due].sort((a, b) => Date.parse(a.expires_at) - Date.parse(b.expires_at) || a.name.localeCompare(b.name));
        const one = listed.length === 1;
        await enqueueEmail({
          t,
          kind: "api_key_expiry_notice",
          to: owner.email,
          subject: one ? "Your Meridian API key expires soon" : `${listed.length} of your Meridian API keys expire soon`,
          text:
            `Hello ${owner.name},\n\n${one ? "This API key" : "These API keys"} of your Meridian account ` +
            `${one ? "expires" : "expire"} within ${API_KEY_EXPIRY_NOTICE_DAYS} days; ` +
            `from then on ${one ? "it is" : "they are"} refused like an unknown key:\n\n` +
            listed.map((key) => `- ${key.name} (${key.prefix}…), expires ${inUtc(key.expires_at)}\n`).join("") +
            `\nTo keep a script or service working, create a new key and use it instead: ${link}\n` +
            `You are told once per key.\n`,
        });
        return listed.length;
      });
      if (warned > 0) {
        users += 1;
        keys += warned;
      }
    }
    if (owners.length < USERS_PER_BATCH) break;
    cursor = owners.at(-1)!.user_id;
  }
  return { users, keys };
}

import { isOrganizationAdminMembership } from "../permissions";
import type { AnnouncementDoc, Executor } from "@meridian/db";
import { publishUserEvent } from "../../platform/events/publish";
import type { InTransaction } from "../../platform/transaction";
import { sql } from "drizzle-orm";

/**
 * Everyone who may manage an announcement (and so sees its counts move): its creator, server
 * admins, and the senders of its scope.
 */
export async function senderUserIds(options: { db: Executor; doc: AnnouncementDoc }): Promise<string[]> {
  const { db, doc } = options;
  const scopeSenders =
    doc.scope === "observatory"
      ? sql`
        select o.owner_id from observatories o where o.id = ${doc.scopeId} and o.owner_kind = 'user'
        union select m.member_id from observatory_members m
         where m.observatory_id = ${doc.scopeId} and m.member_kind = 'user' and (m.doc->'permissions'->>'can_admin')::boolean
        union select om.user_id from observatory_members m
          join organization_members om on om.organization_id = m.member_id
         where m.observatory_id = ${doc.scopeId} and m.member_kind = 'organization' and (m.doc->'permissions'->>'can_admin')::boolean
           and ${isOrganizationAdminMembership("om")}`
      : doc.scope === "organization"
        ? sql`
        select om.user_id from organization_members om
         where om.organization_id = ${doc.scopeId}
           and ${isOrganizationAdminMembership("om")}`
        : doc.scope === "project"
          ? sql`
        select p.owner_id from projects p where p.id = ${doc.scopeId}
        union select pm.user_id from project_members pm where pm.project_id = ${doc.scopeId} and pm.doc->>'role' = 'admin'`
          : sql`select null::text where false`;
  const rows = await db.execute<{ user_id: string }>(sql`
    select ${doc.createdBy}::text as user_id
    union select u.id from users u where u.doc->'roles' ? 'serverAdmin'
    union select * from (${scopeSenders}) scope_senders`);
  return rows.map((row) => row.user_id).filter(Boolean);
}

/**
 * Tells an announcement's senders that its recipients view changed without an acknowledgment
 * (first views, emails delivered), so an open recipients view refreshes its seen and emailed counts.
 */
export async function publishDeliveryProgress(options: { t: Pick<InTransaction, "tx">; announcementIds: string[] }): Promise<void> {
  const { t, announcementIds } = options;
  if (announcementIds.length === 0) return;
  const rows = await t.tx.execute<{ id: string; doc: AnnouncementDoc }>(sql`
    select id, doc from announcements where id in (select jsonb_array_elements_text(${JSON.stringify([...new Set(announcementIds)])}::jsonb))`);
  for (const row of rows) {
    await publishUserEvent({ t, userIds: await senderUserIds({ db: t.tx, doc: row.doc }), event: { type: "announcement.delivery", data: { id: row.id } } });
  }
}

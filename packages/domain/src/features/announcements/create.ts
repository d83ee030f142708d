import { announcementsCollection, type AnnouncementDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { AppError, fieldError, type FieldError } from "../../platform/errors";
import { publishToAnnouncementRecipients } from "../../platform/events/publish";
import { sendMotdToObservatory } from "./observatory-motd";
import { addJob } from "../../platform/jobs/add-job";
import { trackedKind } from "../../platform/jobs/define-job";
import { recordJobStarted } from "../../platform/jobs/tracked-jobs";
import { countSendWithinHourlyLimit } from "../notifications";
import { countRecipients, recipientSource, requireKnownTargets } from "./audiences";
import { presentAnnouncement, rowFromStored } from "./present";
import type { AnnouncementTargetsInput, ScopedAnnouncementCreate, SystemAnnouncementCreate } from "./schemas";
import { requireSender, type AnnouncementScopeRef } from "./scope-access";
import { endOldestAcknowledgedAnnouncements, requireRoomForAnnouncement } from "./active-cap";
import { inTransaction, type InTransaction } from "../../platform/transaction";

/** Recipients per email job; jobs run in parallel on every worker, each claiming batches. */
const EMAILS_PER_JOB = 500;
const MAX_PARALLEL_EMAIL_JOBS = 4;

export const emailJobKey = ({ announcementId, index = 0 }: { announcementId: string; index?: number }) => `announcement-emails:${announcementId}:${index}`;

function resolveSchedule(input: { startsAt?: string | null; expiresAt?: string | null }, now: Date) {
  const startsAt = input.startsAt ? new Date(input.startsAt) : now;
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  const errors: FieldError[] = [];
  if (expiresAt && expiresAt <= now) errors.push(fieldError({ path: "expiresAt", predicate: "must lie in the future" }));
  if (expiresAt && expiresAt <= startsAt) errors.push(fieldError({ path: "expiresAt", predicate: "must lie after the start" }));
  if (errors.length > 0) throw new AppError("VALIDATION_FAILED", "The schedule is not valid", { errors });
  // A start in the past means "now": the announcement was never scheduled.
  return { startsAt: startsAt < now ? now : startsAt, expiresAt };
}

const hasAnyTarget = (targets: AnnouncementTargetsInput) => Object.values(targets).some((target) => target && (target.all || target.ids.length > 0));

/** The number of users the targets reach, before sending. Server admins only. */
export async function previewSystemRecipients(options: { deps: Deps; actor: UserActor; targets: AnnouncementTargetsInput }) {
  const { deps, actor, targets } = options;
  await requireSender({ db: deps.db, actor, ref: { scope: "system", scopeId: null } });
  await requireKnownTargets({ db: deps.db, targets });
  return { recipientCount: await countRecipients({ db: deps.db, source: recipientSource({ ref: { scope: "system", scopeId: null }, targets }) }) };
}

/** Everyone an observatory, organization or project announcement would reach. Senders only. */
export async function previewScopedRecipients(options: { deps: Deps; actor: UserActor; ref: AnnouncementScopeRef }) {
  const { deps, actor, ref } = options;
  await requireSender({ db: deps.db, actor, ref });
  return { recipientCount: await countRecipients({ db: deps.db, source: recipientSource({ ref }) }) };
}

export function createSystemAnnouncement(options: { deps: Deps; actor: UserActor; input: SystemAnnouncementCreate }) {
  const { input } = options;
  if (!hasAnyTarget(input.targets)) {
    throw new AppError("NO_RECIPIENTS", "Choose at least one target", {
      errors: [fieldError({ path: "targets", predicate: "must name at least one target" })],
    });
  }
  return createAnnouncement({ ...options, ref: { scope: "system", scopeId: null }, targets: input.targets });
}

/**
 * An organization's, observatory's or project's announcement. One delivered by email (`email` or
 * `both`) counts toward its creator's EMAIL_ANNOUNCEMENTS_PER_USER_PER_HOUR, across scopes; beyond
 * it 429 RATE_LIMITED with Retry-After, and nothing is created. `message` ones are not counted.
 */
export function createScopedAnnouncement(options: { deps: Deps; actor: UserActor; ref: AnnouncementScopeRef; input: ScopedAnnouncementCreate }) {
  return createAnnouncement(options);
}

/**
 * Creates the announcement and its recipient rows in one transaction. Recipients are resolved
 * once, here, by one INSERT ... SELECT; email recipients and the creator are acknowledged at
 * creation. Emails and the "created" event leave through jobs and the event table written in
 * the same transaction, so nothing goes out for an announcement that was rolled back.
 */
async function createAnnouncement(options: {
  deps: Deps;
  actor: UserActor;
  ref: AnnouncementScopeRef;
  input: ScopedAnnouncementCreate;
  targets?: AnnouncementTargetsInput;
}) {
  const { deps, actor, ref, input, targets } = options;
  const now = deps.now();
  const { startsAt, expiresAt } = resolveSchedule(input, now);
  return inTransaction(deps, async (t) => {
    const access = await requireSender({ db: t.tx, actor, ref });
    if (targets) await requireKnownTargets({ db: t.tx, targets });
    await requireRoomForAnnouncement({ t, ref });
    const emailed = input.deliveryType !== "message";
    // A scope's sender chooses its members, and may add any registered address to a project: what
    // they may email is bounded per sender, across their scopes. Server admins' announcements are not.
    if (emailed && ref.scope !== "system")
      await countSendWithinHourlyLimit({
        t,
        bucket: "announcement-email",
        userId: actor.id,
        limit: deps.env.EMAIL_ANNOUNCEMENTS_PER_USER_PER_HOUR,
        what: "announcements by email (of organizations, observatories and projects together)",
      });
    await endOldestAcknowledgedAnnouncements({ t, ref });
    const doc: AnnouncementDoc = {
      scope: ref.scope,
      scopeId: ref.scopeId,
      scopeName: access.scopeName,
      title: input.title,
      message: input.message,
      severity: input.severity,
      deliveryType: input.deliveryType,
      targets: targets ? normalizeTargets(targets) : null,
      startsAt: startsAt.toISOString(),
      expiresAt: expiresAt?.toISOString() ?? null,
      status: "active",
      createdBy: actor.id,
      createdByName: actor.name,
      createdByEmail: actor.email,
      recipientCount: 0,
      acknowledgedCount: 0,
      cancellationReason: null,
      cancelledAt: null,
      cancelledBy: null,
      expiredAt: null,
      emailPending: emailed,
    };
    const announcement = await announcementsCollection.insert(t.tx, doc);
    // A scheduled email announcement acknowledges its recipients when it starts (announceStarted),
    // so until then it is active and can still be cancelled.
    const emailedNow = emailed && startsAt <= now;
    const counts = await insertRecipients(t, {
      announcementId: announcement.id,
      ref,
      targets,
      emailed,
      acknowledgeAll: emailedNow,
      creatorId: actor.id,
      now,
    });
    if (counts.total === 0) throw new AppError("NO_RECIPIENTS", "The targets reach no users");
    const status = counts.acknowledged === counts.total ? "acknowledged" : "active";
    const stored = await announcementsCollection.update(t.tx, announcement.id, (current) => ({
      ...current,
      status,
      recipientCount: counts.total,
      acknowledgedCount: counts.acknowledged,
    }));

    if (emailed) {
      await recordJobStarted({ t, kind: trackedKind("announcement_emails"), startedBy: actor.id, subjectId: announcement.id, total: counts.total, now });
      const jobs = Math.min(MAX_PARALLEL_EMAIL_JOBS, Math.ceil(counts.total / EMAILS_PER_JOB));
      for (let index = 0; index < jobs; index += 1) {
        await addJob({
          t,
          name: "announcement_emails",
          payload: { announcementId: announcement.id },
          jobKey: emailJobKey({ announcementId: announcement.id, index }),
          runAt: startsAt,
        });
      }
    }
    const presented = presentAnnouncement({ row: rowFromStored(stored!), includeTargets: false });
    await invalidateCaches({ t, change: { kind: "announcements" } });
    if (startsAt > now) {
      await addJob({
        t,
        name: "announcement_started",
        payload: { announcementId: announcement.id },
        runAt: startsAt,
      });
    } else {
      await publishToAnnouncementRecipients({ t, announcementId: announcement.id, event: { type: "announcement.created", data: presented } });
      await sendMotdToObservatory({ t, announcement: doc, presented });
    }
    const scope = ref.scope === "system" ? { kind: "system" as const, id: "system", name: null } : { kind: ref.scope, id: ref.scopeId, name: access.scopeName };
    await recordAudit({
      t,
      actor,
      action: "announcement.created",
      target: { kind: "announcement", id: announcement.id, name: input.title },
      scope,
      after: { severity: input.severity, deliveryType: input.deliveryType, recipientCount: counts.total, startsAt: doc.startsAt, expiresAt: doc.expiresAt },
    });
    return presentAnnouncement({ row: rowFromStored(stored!), includeTargets: true });
  });
}

function normalizeTargets(targets: AnnouncementTargetsInput) {
  return Object.fromEntries(
    Object.entries(targets)
      .filter(([, target]) => target && (target.all || target.ids.length > 0))
      .map(([kind, target]) => [kind, { all: target!.all, ids: target!.all ? [] : [...new Set(target!.ids)] }]),
  );
}

async function insertRecipients(
  t: Pick<InTransaction, "tx">,
  options: {
    announcementId: string;
    ref: AnnouncementScopeRef;
    targets?: AnnouncementTargetsInput;
    emailed: boolean;
    acknowledgeAll: boolean;
    creatorId: string;
    now: Date;
  },
): Promise<{ total: number; acknowledged: number }> {
  const { announcementId, emailed, creatorId } = options;
  const nowIso = options.now.toISOString();
  const source = recipientSource({ ref: options.ref, targets: options.targets });
  // Removing duplicates among large targets sorts them: keep that sort in memory, for this transaction only.
  await t.tx.execute(sql`set local work_mem = '64MB'`);
  const acknowledged = options.acknowledgeAll ? sql`true` : sql`r.user_id = ${creatorId}`;
  const inserted = await t.tx.execute(sql`
    insert into announcement_recipients (id, doc, announcement_id, user_id, acknowledged_at, email_state, created_at, updated_at)
    select ${announcementId} || ':' || r.user_id,
           jsonb_build_object('via', r.via),
           ${announcementId}, r.user_id,
           case when ${acknowledged} then ${nowIso}::timestamptz end,
           ${emailed ? "pending" : null}::text,
           ${nowIso}::timestamptz, ${nowIso}::timestamptz
      from (${source}) r
     -- In key order, rows append to the right edge of the primary key instead of splitting pages all over it.
     order by r.user_id`);
  // The row count comes with the statement; RETURNING would hold every row in memory to count them.
  const total = (inserted as unknown as { count: number }).count;
  if (options.acknowledgeAll) return { total, acknowledged: total };
  const [creator] = await t.tx.execute<{ found: number }>(sql`select 1 as found from announcement_recipients where id = ${`${announcementId}:${creatorId}`}`);
  return { total, acknowledged: creator ? 1 : 0 };
}

import { randomUUID } from "node:crypto";
import { organizationMembersCollection, organizationsCollection, tables, usersCollection, type ExternalStorageDoc } from "@meridian/db";
import { and, asc, count, desc, eq, gt, ilike, inArray, or, sql } from "drizzle-orm";
import { auditColumns, auditCursor, pageOfAudit } from "../audit";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError, fieldError, type FieldError } from "../../platform/errors";
import { refuseAtCap } from "../../platform/caps";
import { isUniqueViolation } from "../../platform/postgres-errors";
import { ALL_ORGANIZATION_PERMISSIONS, loadOrganizationAccess } from "./organization-access";
import { presentOrganization } from "./present";
import type { OrganizationCreate, OrganizationUpdate } from "./schemas";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { keysetCursor } from "../../platform/validation/keyset-cursor";

const shortNameTaken = () => new AppError("SHORT_NAME_TAKEN", "Another organization already uses this short name");

/**
 * Organizations one user may own, created or handed over to them: the next is 409 CONFLICT until
 * one is deleted or handed over (a user's list of organizations is then bounded).
 */
export const MAX_OWNED_ORGANIZATIONS = 100;

/**
 * Refuses making the user the owner of one more organization past MAX_OWNED_ORGANIZATIONS. Counted
 * under the user's row lock, taken after any organization's (the order of an invitation's
 * acceptance): creations and transfers to one user count one after another, so none passes the
 * cap beside another.
 */
export async function requireRoomForOwnedOrganization(options: { t: Pick<InTransaction, "tx">; userId: string; asked: "by them" | "for them" }) {
  const { t, userId } = options;
  if (!(await usersCollection.get(t.tx, userId, { forUpdate: true }))) throw new AppError("NOT_FOUND", "No such user");
  const { organizations } = tables;
  const [row] = await t.tx.select({ count: count() }).from(organizations).where(eq(organizations.ownerId, userId));
  if ((row?.count ?? 0) < MAX_OWNED_ORGANIZATIONS) return;
  throw new AppError(
    "CONFLICT",
    options.asked === "by them"
      ? `You own ${MAX_OWNED_ORGANIZATIONS} organizations, the most one account may own; delete or transfer one first`
      : `The new owner already owns ${MAX_OWNED_ORGANIZATIONS} organizations, the most one account may own; they must delete or transfer one first`,
  );
}

/**
 * Members one organization may have, and organizations one user may belong to (owned ones
 * included: the owner is a member): the member list and a user's list of organizations are then
 * bounded, and returned whole. The next is 409 CONFLICT until one leaves.
 */
export const MAX_ORGANIZATION_MEMBERS = 10_000;
export const MAX_ORGANIZATION_MEMBERSHIPS = 1000;

/**
 * Refuses one more organization for the user past MAX_ORGANIZATION_MEMBERSHIPS, counted under the
 * user's row lock, taken after the organization's (the order of an invitation's acceptance), as
 * project memberships are: additions of one user to several organizations count one after another.
 */
export async function requireRoomForOrganizationMembership(options: { t: Pick<InTransaction, "tx">; userId: string }) {
  const { t, userId } = options;
  if (!(await usersCollection.get(t.tx, userId, { forUpdate: true }))) throw new AppError("NOT_FOUND", "No such user");
  const { organizationMembers } = tables;
  await refuseAtCap({
    t,
    table: organizationMembers,
    where: eq(organizationMembers.userId, userId),
    cap: MAX_ORGANIZATION_MEMBERSHIPS,
    refusal: `The account already belongs to ${MAX_ORGANIZATION_MEMBERSHIPS} organizations, the most one may; it must leave one first`,
  });
}

export async function createOrganization(options: { deps: Deps; actor: UserActor; input: OrganizationCreate }) {
  const { deps, actor, input } = options;
  try {
    return await inTransaction(deps, async (t) => {
      await requireRoomForOwnedOrganization({ t, userId: actor.id, asked: "by them" });
      // The creator becomes its first member: one more organization they belong to.
      await requireRoomForOrganizationMembership({ t, userId: actor.id });
      const organization = await organizationsCollection.insert(t.tx, {
        name: input.name,
        shortName: input.shortName,
        type: input.type,
        description: input.description ?? null,
        contactEmail: input.contactEmail,
        ownerId: actor.id,
        externalStorage: [],
      });
      await organizationMembersCollection.insert(t.tx, { organizationId: organization.id, userId: actor.id, permissions: ALL_ORGANIZATION_PERMISSIONS });
      const scope = { kind: "organization" as const, id: organization.id, name: input.name };
      await recordAudit({
        t,
        actor,
        action: "organization.created",
        target: scope,
        scope,
        after: { name: input.name, shortName: input.shortName, ownerId: actor.id },
      });
      return presentOrganization(organization);
    });
  } catch (error) {
    if (isUniqueViolation({ error, constraint: "organizations_short_name_lower_key" })) throw shortNameTaken();
    throw error;
  }
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

// In short-name order; the lower-cased short name is unique, so it alone places a cursor (it passes
// an id's checks: at most 32 letters, digits, "-" or "_"). It is still wrapped, so that garbage is
// told apart, and held by value, so that an organization deleted between two page reads leaves
// the walk going on from where it was.
const organizationPosition = keysetCursor({ list: "organizations", parts: ["id"] });

/**
 * The actor's organizations, whole (MAX_ORGANIZATION_MEMBERSHIPS bounds them; `limit` and `cursor`
 * play no part); server admins may ask for every organization with `all`, a page of `limit` at a
 * time from `cursor`. Either list is by short name and, with `q`, holds those whose name or short
 * name contains it, case-insensitively.
 */
export async function listOrganizations(options: { deps: Deps; actor: UserActor; all?: boolean; q?: string; limit: number; cursor?: string }) {
  const { deps, actor } = options;
  const { organizations, organizationMembers } = tables;
  if (options.all && !actor.isServerAdmin) throw new AppError("FORBIDDEN", "Only server administrators may list every organization");
  const q = options.q?.trim();
  const matches = q
    ? or(ilike(organizations.shortNameLower, likePattern(q.toLowerCase())), ilike(sql`${organizations.doc}->>'name'`, likePattern(q)))
    : undefined;
  if (options.all) {
    const { limit } = options;
    const [after] = options.cursor ? organizationPosition.decode(options.cursor) : [];
    const rows = await deps.db
      .select()
      .from(organizations)
      .where(and(matches, after === undefined ? undefined : gt(organizations.shortNameLower, after)))
      .orderBy(asc(organizations.shortNameLower))
      .limit(limit + 1);
    const page = rows.slice(0, limit);
    return {
      items: page.map((row) => presentOrganization(row)),
      nextCursor: rows.length > limit ? organizationPosition.encode(page[page.length - 1]!.shortNameLower) : null,
    };
  }
  const rows = await deps.db
    .select()
    .from(organizations)
    .where(
      and(
        inArray(
          organizations.id,
          deps.db.select({ id: organizationMembers.organizationId }).from(organizationMembers).where(eq(organizationMembers.userId, actor.id)),
        ),
        matches,
      ),
    )
    .orderBy(asc(organizations.shortNameLower))
    // Whole: the cap bounds it (a user past it from before the cap came still reads this many).
    .limit(MAX_ORGANIZATION_MEMBERSHIPS);
  return { items: rows.map((row) => presentOrganization(row)), nextCursor: null };
}

export async function getOrganization(options: { deps: Deps; actor: UserActor; organizationId: string }) {
  const access = await loadOrganizationAccess({ db: options.deps.db, actor: options.actor, organizationId: options.organizationId });
  return {
    ...presentOrganization(access.organization),
    myPermissions: access.permissions,
    myRole: access.isOwner ? ("owner" as const) : access.isMember ? ("member" as const) : null,
  };
}

/**
 * The destinations as sent, merged with the stored ones. What is sent is checked by the input's
 * schema (each kind's settings and secrets); what depends on the stored list is checked here: a
 * new destination, or one whose kind changes, needs settings and secrets of its own. One sent back
 * by id, same kind, keeps whatever it does not send, unchecked (an older, incomplete destination
 * does not stop the others from being edited).
 */
function mergeExternalStorage(
  deps: Pick<Deps, "secrets">,
  current: ExternalStorageDoc[],
  input: NonNullable<OrganizationUpdate["externalStorage"]>,
): ExternalStorageDoc[] {
  const errors: FieldError[] = [];
  const named = new Set<string>();
  const merged = input.map((item, index): ExternalStorageDoc | null => {
    const at = (field: string) => `externalStorage.${index}.${field}`;
    const existing = item.id ? current.find((destination) => destination.id === item.id) : undefined;
    if (item.id && !existing) {
      errors.push(fieldError({ path: at("id"), predicate: "is not a destination of this organization" }));
      return null;
    }
    // One destination twice would be stored as two with one id: deliveries and tests name it by id.
    if (item.id && named.has(item.id)) {
      errors.push(fieldError({ path: at("id"), predicate: "names a destination already in the list" }));
      return null;
    }
    if (item.id) named.add(item.id);
    const sameKind = existing !== undefined && existing.kind === item.kind;
    if (!sameKind) {
      const predicate = existing ? "must be sent when the kind changes" : "must be sent for a new destination";
      if (item.settings === undefined) errors.push(fieldError({ path: at("settings"), predicate }));
      if (item.secrets === undefined) errors.push(fieldError({ path: at("secrets"), predicate }));
    }
    const keepSettings = sameKind && item.settings === undefined;
    const keepSecrets = sameKind && item.secrets === undefined;
    return {
      id: existing?.id ?? `ext_${randomUUID()}`,
      kind: item.kind,
      label: item.label,
      settings: keepSettings ? existing.settings : { ...item.settings },
      sealedSecrets: keepSecrets ? existing.sealedSecrets : item.secrets ? deps.secrets.seal(JSON.stringify(item.secrets)) : null,
      secretKeys: keepSecrets ? existing.secretKeys : Object.keys(item.secrets ?? {}).sort(),
    };
  });
  if (errors.length > 0) throw new AppError("VALIDATION_FAILED", errors.map((error) => error.message).join(" "), { errors });
  return merged.filter((destination) => destination !== null);
}

/** Owner (or server admin) changes anything; `can_manage_storage` changes only externalStorage. */
export async function updateOrganization(options: { deps: Deps; actor: UserActor; organizationId: string; input: OrganizationUpdate }) {
  const { deps, actor, organizationId, input } = options;
  const { externalStorage, ...settings } = input;
  const changesSettings = Object.values(settings).some((value) => value !== undefined);
  try {
    return await inTransaction(deps, async (t) => {
      // Locked: who is the owner (and so may change the settings) holds until the change is written.
      const access = await loadOrganizationAccess({ db: t.tx, actor, organizationId, forUpdate: true });
      const isManager = access.isOwner || actor.isServerAdmin;
      if (changesSettings && !isManager) throw new AppError("FORBIDDEN", "Only the owner changes organization settings");
      if (externalStorage !== undefined && !isManager && !access.permissions.can_manage_storage)
        throw new AppError("FORBIDDEN", "This needs can_manage_storage in the organization");
      const before = access.organization.doc;
      const updated = await organizationsCollection.update(
        t.tx,
        organizationId,
        (doc) => ({
          ...doc,
          name: settings.name ?? doc.name,
          shortName: settings.shortName ?? doc.shortName,
          type: settings.type ?? doc.type,
          description: settings.description === undefined ? doc.description : settings.description,
          contactEmail: settings.contactEmail ?? doc.contactEmail,
          externalStorage: externalStorage === undefined ? doc.externalStorage : mergeExternalStorage(t, doc.externalStorage, externalStorage),
        }),
        { seen: access.organization },
      );
      if (!updated) throw new AppError("NOT_FOUND", "No such organization");
      const scope = { kind: "organization" as const, id: organizationId, name: updated.doc.name };
      if (changesSettings) {
        const pick = (doc: typeof before) => ({
          name: doc.name,
          shortName: doc.shortName,
          type: doc.type,
          description: doc.description,
          contactEmail: doc.contactEmail,
        });
        await recordAudit({ t, actor, action: "organization.updated", target: scope, scope, before: pick(before), after: pick(updated.doc) });
      }
      if (externalStorage !== undefined) {
        const summary = (list: ExternalStorageDoc[]) => list.map(({ id, kind, label, secretKeys }) => ({ id, kind, label, configuredSecrets: secretKeys }));
        await recordAudit({
          t,
          actor,
          action: "organization.external_storage_updated",
          target: scope,
          scope,
          before: summary(before.externalStorage),
          after: summary(updated.doc.externalStorage),
        });
      }
      return presentOrganization(updated);
    });
  } catch (error) {
    if (isUniqueViolation({ error, constraint: "organizations_short_name_lower_key" })) throw shortNameTaken();
    throw error;
  }
}

/** For code that sends data to a destination (observations, later): the decrypted secrets. */
export function openExternalStorageSecrets(options: { deps: Pick<Deps, "secrets">; destination: ExternalStorageDoc }): Record<string, string> {
  const { deps, destination } = options;
  return destination.sealedSecrets ? (JSON.parse(deps.secrets.open(destination.sealedSecrets)) as Record<string, string>) : {};
}

export async function listOrganizationAudit(options: { deps: Deps; actor: UserActor; organizationId: string; limit: number; cursor?: string }) {
  const { deps, actor, organizationId } = options;
  const access = await loadOrganizationAccess({ db: deps.db, actor, organizationId });
  if (!access.isOwner && !actor.isServerAdmin && !access.permissions.can_manage_members)
    throw new AppError("FORBIDDEN", "This needs can_manage_members in the organization");
  const { auditLog } = tables;
  const rows = await deps.db
    .select(auditColumns())
    .from(auditLog)
    .where(and(eq(auditLog.scopeKind, "organization"), eq(auditLog.scopeId, organizationId), auditCursor(options.cursor)))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(options.limit + 1);
  return pageOfAudit({ rows, limit: options.limit });
}

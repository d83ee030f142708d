import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRefusal, refusalOf, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";

// Domain rules of access, through the app router's caller: no HTTP (the REST paths are walked in the *-access files).
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

/** Whether a call succeeded (201, 200 or 204 over REST) or the status its refusal has there. */
const statusOf = (call: Promise<unknown>, success: number) =>
  call.then(
    () => ({ status: success, code: undefined as string | undefined }),
    async (error: unknown) => {
      const refusal = await refusalOf(Promise.reject(error as Error));
      return { status: refusal.status, code: refusal.code as string | undefined };
    },
  );

describe("observatory permissions inherited through organizations", () => {
  it("gives organization members what their role inherits, capped by the grant, and takes it away when they leave", async () => {
    const owner = await runtime.signup();
    const orgOwner = await runtime.signup();
    const member = await runtime.signup();
    const admin = await runtime.signup();
    const stranger = await runtime.signup();

    const observatoryId = (await owner.caller.observatories.create({ name: "Kitt Peak" })).id;

    const organizationId = (
      await orgOwner.caller.organizations.create({ name: "Lowell", shortName: "lowell", type: "observatory", contactEmail: "contact@lowell.example" })
    ).id;
    await orgOwner.caller.organizations.addMember({ id: organizationId, email: member.email });
    await orgOwner.caller.organizations.addMember({ id: organizationId, email: admin.email, permissions: { can_manage_members: true } });

    // Before the organization joins, its members see nothing (404, not 403).
    await expectRefusal(member.caller.observatories.get({ id: observatoryId }), 404, "NOT_FOUND");

    await owner.caller.observatories.addOrganization({
      id: observatoryId,
      organizationId,
      permissions: { can_view: true, can_observe: true, can_operate: true, can_admin: false },
    });

    expect(await member.caller.observatories.myPermissions({ id: observatoryId })).toMatchObject({
      can_view: true,
      can_observe: true,
      can_operate: false,
      can_admin: false,
    });
    // Admins inherit can_admin + can_operate, but the organization was granted no can_admin.
    expect(await admin.caller.observatories.myPermissions({ id: observatoryId })).toMatchObject({
      can_view: true,
      can_observe: true,
      can_operate: true,
      can_admin: false,
    });
    await expectRefusal(stranger.caller.observatories.get({ id: observatoryId }), 404, "NOT_FOUND");

    const list = await member.caller.observatories.list({});
    expect(list.items.map((item) => item.id)).toEqual([observatoryId]);

    // The member cannot administer; the admin cannot either (capped).
    await expectRefusal(admin.caller.observatories.addUser({ id: observatoryId, email: stranger.email }), 403, "FORBIDDEN");

    // Leaving the organization removes access on the very next request.
    await member.caller.organizations.removeMember({ id: organizationId, userId: member.id });
    await expectRefusal(member.caller.observatories.get({ id: observatoryId }), 404, "NOT_FOUND");

    const history = await owner.caller.observatories.history({ id: observatoryId });
    expect(history.items[0]).toMatchObject({ type: "organization_added", actorId: owner.id, data: { organizationId, organizationName: "Lowell" } });
  });

  it("lets exactly one of concurrent creations with one short name succeed", async () => {
    const users = await Promise.all([0, 1, 2, 3, 4].map(() => runtime.signup()));
    const statuses = await Promise.all(
      users.map((user, index) =>
        statusOf(
          user.caller.organizations.create({
            name: `Org ${index}`,
            shortName: index % 2 ? "SameName" : "samename",
            type: "university",
            contactEmail: "x@example.com",
          }),
          201,
        ),
      ),
    );
    expect(statuses.filter((result) => result.status === 201)).toHaveLength(1);
    expect(statuses.filter((result) => result.status === 409 && result.code === "SHORT_NAME_TAKEN")).toHaveLength(4);
  });

  it("pages through exactly the observatories a user can view, with their permissions", async () => {
    const owner = await runtime.signup();
    const viewer = await runtime.signup();
    const create = async (name: string, as: CallerAccount) => (await as.caller.observatories.create({ name })).id;
    const own = await create("Own", viewer);
    const direct = await create("Direct", owner);
    const viaOrg = await create("Via organization", owner);
    const emptyGrant = await create("Empty grant", owner);
    await create("Hidden", owner);
    const grant = (id: string, permissions: Record<string, boolean>) => owner.caller.observatories.addUser({ id, email: viewer.email, permissions });
    await grant(direct, { can_view: false, can_observe: false, can_operate: true, can_admin: false });
    await grant(emptyGrant, { can_view: false, can_observe: false, can_operate: false, can_admin: false });
    const organization = await owner.caller.organizations.create({ name: "Paging", shortName: "paging-org", type: "other", contactEmail: "p@example.com" });
    await owner.caller.organizations.addMember({ id: organization.id, email: viewer.email });
    await owner.caller.observatories.addOrganization({ id: viaOrg, organizationId: organization.id, permissions: { can_admin: true } });

    const seen: Array<{ id: string; myPermissions?: Record<string, boolean> }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { items: typeof seen; nextCursor: string | null } = await viewer.caller.observatories.list({ limit: 2, cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(seen.map((item) => item.id).sort()).toEqual([own, direct, viaOrg].sort());
    const byId = new Map(seen.map((item) => [item.id, item.myPermissions]));
    expect(byId.get(own)).toEqual({ can_view: true, can_observe: true, can_operate: true, can_admin: true });
    expect(byId.get(direct)).toEqual({ can_view: true, can_observe: true, can_operate: true, can_admin: false });
    // A regular organization member inherits view + observe, whatever more the organization holds.
    expect(byId.get(viaOrg)).toEqual({ can_view: true, can_observe: true, can_operate: false, can_admin: false });
    await expectRefusal(viewer.caller.observatories.get({ id: emptyGrant }), 404, "NOT_FOUND");
  });

  it("lets only one of two concurrent ownership transfers through", async () => {
    const owner = await runtime.signup();
    const first = await runtime.signup();
    const second = await runtime.signup();
    const id = (await owner.caller.organizations.create({ name: "Race", shortName: "race-org", type: "other", contactEmail: "r@example.com" })).id;
    for (const member of [first, second]) await owner.caller.organizations.addMember({ id, email: member.email });
    const results = await Promise.all([first, second].map((member) => statusOf(owner.caller.organizations.transferOwnership({ id, userId: member.id }), 200)));
    // The row lock makes the second transfer see that the caller no longer owns the organization.
    expect(results.map((result) => result.status).sort()).toEqual([200, 403]);
    const winner = results[0]!.status === 200 ? first : second;
    expect((await winner.caller.organizations.get({ id })).ownerId).toBe(winner.id);
  });
});

import { observationsCollection, observatoriesCollection } from "@meridian/db";
import { observatoriesAwaitingDispatch } from "@meridian/domain/observations";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationDocument } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";

// The minute's maintenance queues a dispatch only where one could assign something (issue 26, point 3:
// with 1,000 observatories connected it queued 1,000 dispatch jobs a minute that found nothing).
const ADMIN = { email: "minute-dispatch-admin@example.com", password: "minute dispatch admin password" };
let server: TestServer;
let owner: Account;
let projectId: string;
beforeAll(async () => {
  // No worker: nothing moves the documents this test writes.
  ({ server } = await startServerWithAdmin(ADMIN));
  owner = await createAccount(server);
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Minute dispatch" } }, 201)) as { id: string }).id;
});
afterAll(() => server?.stop());
const { must, createObservatory } = jsonApi(() => server);

const deps = () => server.server.runtime.deps;
async function observatoryWith(options: { online: boolean; statuses: Array<"pending" | "assigned" | "in_progress" | "completed"> }) {
  const { id } = await createObservatory(owner);
  await observatoriesCollection.update(deps().db, id, (doc) => ({ ...doc, connection: { ...doc.connection, online: options.online } }));
  for (const status of options.statuses)
    await observationsCollection.insert(deps().db, observationDocument({ projectId, observatoryId: id, ownerId: owner.id }, { status }));
  return id;
}

describe("the minute's dispatch", () => {
  it("is for online observatories with an observation waiting and none under way, and for no other", async () => {
    const waiting = await observatoryWith({ online: true, statuses: ["pending", "completed"] });
    const idle = await observatoryWith({ online: true, statuses: ["completed"] });
    const busy = await observatoryWith({ online: true, statuses: ["pending", "in_progress"] });
    const holding = await observatoryWith({ online: true, statuses: ["pending", "assigned"] });
    const offline = await observatoryWith({ online: false, statuses: ["pending"] });
    const awaiting = await observatoriesAwaitingDispatch({ db: deps().db });
    expect(awaiting).toContain(waiting);
    for (const other of [idle, busy, holding, offline]) expect(awaiting).not.toContain(other);
  });

  it("takes in an observatory once what held it has ended", async () => {
    const observatoryId = await observatoryWith({ online: true, statuses: ["pending", "in_progress"] });
    expect(await observatoriesAwaitingDispatch({ db: deps().db })).not.toContain(observatoryId);
    // The run ends (its column and its document, as a move writes them).
    await deps().db.execute(
      sql`update observations set status = 'completed', doc = doc || '{"status": "completed"}'
           where observatory_id = ${observatoryId} and status = 'in_progress'`,
    );
    expect(await observatoriesAwaitingDispatch({ db: deps().db })).toContain(observatoryId);
  });
});

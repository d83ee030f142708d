import {
  organizationMembersCollection,
  tables,
  usersCollection,
  type FileDoc,
  type ObservationDoc,
  type OrganizationDoc,
  type StoredDocument,
} from "@meridian/db";
import { eq } from "drizzle-orm";
import { appLink } from "../../platform/email/app-link";
import { notifyUsers } from "../notifications";
import type { InTransaction } from "../../platform/transaction";

/** A delivery that gave up: the observation's owner and the organization's owner and `can_manage_storage` members hear of it (contract). */
export async function notifyDeliveryFailed(options: {
  t: Pick<InTransaction, "tx" | "env" | "listeningOn">;
  observation: StoredDocument<ObservationDoc>;
  file: StoredDocument<FileDoc>;
  organization: StoredDocument<OrganizationDoc> | undefined;
  reason: string;
}) {
  const { t, observation, file, organization, reason } = options;
  const userIds = new Set([observation.doc.ownerId]);
  if (organization) {
    userIds.add(organization.doc.ownerId);
    const members = await organizationMembersCollection.findMany(t.tx, eq(tables.organizationMembers.organizationId, organization.id), undefined, 10_000);
    for (const member of members) if (member.doc.permissions.can_manage_storage) userIds.add(member.doc.userId);
  }
  const users = (await Promise.all([...userIds].map((id) => usersCollection.get(t.tx, id)))).filter((user) => user !== undefined);
  await notifyUsers({
    t,
    users,
    message: {
      kind: "file_delivery_failed",
      subject: `${file.doc.filename} could not be delivered`,
      lines: [
        `The file "${file.doc.filename}" of the observation "${observation.doc.name}" could not be copied to the organization's storage destination.`,
        `Reason: ${reason}`,
        "The observation's page has a button to try again.",
      ],
      link: appLink({ deps: t, path: `/observations/${observation.id}` }),
      priority: 1,
    },
  });
}

import { organizationsCollection, projectsCollection, type ExternalStorageDoc, type Executor } from "@meridian/db";
import { AppError, fieldError } from "../../platform/errors";

/** The destination of that id among the project's organization's, if the project has an organization and it has one. */
export async function findStorageDestination(options: { db: Executor; projectId: string; destinationId: string }) {
  const project = await projectsCollection.get(options.db, options.projectId);
  if (!project?.doc.organizationId) return undefined;
  const organization = await organizationsCollection.get(options.db, project.doc.organizationId);
  const destination = organization?.doc.externalStorage.find((item) => item.id === options.destinationId);
  return destination && organization ? { project, organization, destination: destination satisfies ExternalStorageDoc } : undefined;
}

/** An observation may name only a destination of its project's organization (contract: 400 UNKNOWN_DESTINATION). */
export async function requireStorageDestination(options: { db: Executor; projectId: string; destinationId: string | null | undefined }) {
  const { destinationId } = options;
  if (!destinationId) return;
  if (!(await findStorageDestination({ db: options.db, projectId: options.projectId, destinationId })))
    throw new AppError("UNKNOWN_DESTINATION", "storageDestinationId is not an external storage destination of the project's organization", {
      errors: [fieldError({ path: "storageDestinationId", predicate: "is not a storage destination of the project's organization" })],
    });
}

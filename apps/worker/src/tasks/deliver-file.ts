import { deliverFile } from "@meridian/domain/delivery";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

// A failed attempt queues the next one itself (waits of minutes to hours, contract: 8 over 12 h);
// graphile-worker's own retry is for an attempt that was killed mid-way.
export const deliverFileTask = defineTask(jobContracts.deliver_file, async (payload, { deps }, helpers) => {
  const outcome = await deliverFile({ deps, ...payload });
  helpers.logger.debug(`delivery of ${payload.fileId} to ${payload.destinationId}: ${outcome}`);
});

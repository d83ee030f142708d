import { deliverOutboxEmail, jobContracts } from "@meridian/domain";
import { defineTask } from "../define-task";
import { mailTransportFor } from "../mail-transport";

export const sendEmailTask = defineTask(jobContracts.send_email, async (payload, { deps }, helpers) => {
  const outcome = await deliverOutboxEmail({ deps, transport: mailTransportFor(deps, "single"), outboxId: payload.outboxId });
  helpers.logger.debug(`email ${payload.outboxId}: ${outcome}`);
});

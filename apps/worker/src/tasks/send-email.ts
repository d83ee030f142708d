import { deliverRecipientEmails, jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";
import { mailTransportFor } from "../mail-transport";

export const sendEmailTask = defineTask(jobContracts.send_email, async (payload, { deps }, helpers) => {
  const outcome = await deliverRecipientEmails({ deps, transport: mailTransportFor(deps), outboxId: payload.outboxId });
  helpers.logger.debug(`emails to the recipient of ${payload.outboxId}: ${outcome.sent} sent, ${outcome.failed} given up`);
});

import { createMailTransport, deliverOutboxEmail, jobContracts, type MailTransport } from "@meridian/domain";
import { defineTask } from "../define-task";

const transports = new WeakMap<object, MailTransport>();

export const sendEmailTask = defineTask(jobContracts.send_email, async (payload, { deps }, helpers) => {
  let transport = transports.get(deps);
  if (!transport) {
    transport = createMailTransport(deps.env);
    transports.set(deps, transport);
  }
  const outcome = await deliverOutboxEmail({ deps, transport, outboxId: payload.outboxId });
  helpers.logger.debug(`email ${payload.outboxId}: ${outcome}`);
});

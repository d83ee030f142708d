import { createMailTransport, deliverOutboxEmail, SEND_EMAIL_TASK, type MailTransport } from "@meridian/domain";
import { z } from "zod";
import { defineTask } from "../define-task";

const transports = new WeakMap<object, MailTransport>();

export const sendEmailTask = defineTask(SEND_EMAIL_TASK, z.object({ outboxId: z.string().min(1) }), async (payload, { deps }, helpers) => {
  let transport = transports.get(deps);
  if (!transport) {
    transport = createMailTransport(deps.env);
    transports.set(deps, transport);
  }
  const outcome = await deliverOutboxEmail({ deps, transport, outboxId: payload.outboxId });
  helpers.logger.debug(`email ${payload.outboxId}: ${outcome}`);
});

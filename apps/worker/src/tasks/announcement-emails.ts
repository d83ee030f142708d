import { ANNOUNCEMENT_EMAILS_TASK, createMailTransport, deliverAnnouncementEmails, type MailTransport } from "@meridian/domain";
import { z } from "zod";
import { defineTask } from "../define-task";

const transports = new WeakMap<object, MailTransport>();

export const announcementEmailsTask = defineTask(ANNOUNCEMENT_EMAILS_TASK, z.object({ announcementId: z.string().min(1) }), async (payload, { deps }, helpers) => {
  let transport = transports.get(deps);
  if (!transport) {
    transport = createMailTransport(deps.env);
    transports.set(deps, transport);
  }
  const outcome = await deliverAnnouncementEmails({ deps, transport, announcementId: payload.announcementId });
  helpers.logger.debug(`announcement ${payload.announcementId}: ${outcome.sent} sent, ${outcome.skipped} skipped`);
});

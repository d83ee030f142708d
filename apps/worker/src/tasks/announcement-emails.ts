import { createMailTransport, deliverAnnouncementEmails, jobContracts, type MailTransport } from "@meridian/domain";
import { defineTask } from "../define-task";

const transports = new WeakMap<object, MailTransport>();

export const announcementEmailsTask = defineTask(jobContracts.announcement_emails, async (payload, { deps }, helpers) => {
  let transport = transports.get(deps);
  if (!transport) {
    transport = createMailTransport(deps.env);
    transports.set(deps, transport);
  }
  const outcome = await deliverAnnouncementEmails({ deps, transport, announcementId: payload.announcementId });
  helpers.logger.debug(`announcement ${payload.announcementId}: ${outcome.sent} sent, ${outcome.skipped} skipped`);
});

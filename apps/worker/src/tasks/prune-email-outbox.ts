import { jobContracts, pruneEmailOutbox } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const pruneEmailOutboxTask = defineTask(jobContracts.prune_email_outbox, async (_payload, { deps }) => {
  await pruneEmailOutbox({ db: deps.db, now: deps.now(), keepDays: deps.env.EMAIL_OUTBOX_KEEP_DAYS });
});

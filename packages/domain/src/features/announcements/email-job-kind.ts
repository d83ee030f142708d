/** The kind of the tracked job (jobs collection) that follows an announcement's email fan-out. */
export const EMAIL_JOB_KIND = "announcement_emails";

import { sendApiKeyExpiryNotices } from "@meridian/domain/auth";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const apiKeyExpiryNoticesTask = defineTask(jobContracts.api_key_expiry_notices, async (_payload, { deps }) => {
  await sendApiKeyExpiryNotices({ deps, now: deps.now() });
});

import { apiKeyOperations } from "./api-keys";
import { emailChangeOperations } from "./email-change";
import { gettingStartedOperations } from "./getting-started";
import { notificationOperations } from "./notifications";
import { profileOperations } from "./profile";
import { sessionOperations } from "./sessions";

/**
 * The signed-in user's own account: profile, avatar, API keys, password, email address, sessions, push channels and the
 * first-night checklist (tRPC `user.*`).
 */
export const userOperations = {
  ...profileOperations,
  ...apiKeyOperations,
  ...sessionOperations,
  ...emailChangeOperations,
  ...notificationOperations,
  ...gettingStartedOperations,
};

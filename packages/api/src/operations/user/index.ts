import { apiKeyOperations } from "./api-keys";
import { notificationOperations } from "./notifications";
import { profileOperations } from "./profile";
import { sessionOperations } from "./sessions";

/** The signed-in user's own account: profile, avatar, API keys, password, sessions and push channels (tRPC `user.*`). */
export const userOperations = { ...profileOperations, ...apiKeyOperations, ...sessionOperations, ...notificationOperations };

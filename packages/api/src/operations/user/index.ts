import { apiKeyOperations } from "./api-keys";
import { profileOperations } from "./profile";
import { sessionOperations } from "./sessions";

/** The signed-in user's own account: profile, avatar, API keys, password and sessions (tRPC `user.*`). */
export const userOperations = { ...profileOperations, ...apiKeyOperations, ...sessionOperations };

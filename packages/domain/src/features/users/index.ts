// The door of the feature users: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./schemas";
export { presentUser, isServerAdmin } from "./present";
export { getProfile, updateProfile } from "./profile";
export { gettingStartedSchema, readGettingStarted } from "./getting-started";
export { setAvatar, getAvatar, MAX_AVATAR_BYTES } from "./avatar";
export { findServerAdmins } from "./find-user";
export { NO_PUSHOVER_TOKEN, presentPushover, pushoverConfigured } from "./pushover-view";
export { enabledUser } from "./enabled-sql";
export { loadUsersById } from "./find-user";
export { findUserByEmail } from "./find-user";

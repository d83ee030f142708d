// The door of the feature users: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./schemas";
export { presentUser, isServerAdmin } from "./present";
export { getProfile, updateProfile } from "./profile";
export { gettingStartedSchema, readGettingStarted, type GettingStarted } from "./getting-started";
export { setAvatar, getAvatar, detectImageType, MAX_AVATAR_BYTES } from "./avatar";
export { findUserByEmail } from "./find-user";

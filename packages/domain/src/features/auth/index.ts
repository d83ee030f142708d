// The door of the feature auth: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./schemas";
export { signup } from "./signup";
export { ensureServerAdmin } from "./ensure-admin";
export { login } from "./login";
export { authenticateToken } from "./authenticate";
export { createApiKey, listApiKeys, MAX_LIVE_API_KEYS, revokeApiKey } from "./api-keys";
export { API_KEY_EXPIRY_NOTICE_DAYS, sendApiKeyExpiryNotices } from "./api-key-expiry-notices";
export { deleteSessionByToken, MAX_LIVE_SESSIONS, type ClientInfo } from "./sessions";
export { hashSecret } from "../../platform/secrets/tokens";
export { hashPassword, verifyPassword } from "./passwords";
export { passwordAttemptRules } from "./attempt-limits";
export { addressKey } from "./address-key";

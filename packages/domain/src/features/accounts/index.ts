// The door of the feature accounts: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./schemas";
export { listMySessions, revokeMySession, revokeOtherSessions } from "./user-sessions";
export { changePassword } from "./change-password";
export { requestPasswordReset, confirmPasswordReset } from "./password-reset";
export { requestEmailChange, confirmEmailChange, getPendingEmailChange, cancelEmailChange } from "./email-change";
export { listUsersForAdmin, updateUserByAdmin } from "./admin-users";

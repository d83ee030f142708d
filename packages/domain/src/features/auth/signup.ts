import { usersCollection, type UserDoc } from "@meridian/db";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { presentUser } from "../users";
import { isUniqueViolation } from "../../platform/postgres-errors";
import { hashPassword } from "./passwords";
import { countAttempt } from "../../platform/rate-limit";
import type { SignupInput } from "./schemas";
import { createSession, type ClientInfo } from "./sessions";
import { inTransaction } from "../../platform/transaction";
import { requireInvitationToSignUp } from "../invitations";
import { addressKey } from "./address-key";

export const defaultNotificationPreferences = { email: true, push: false, systemEvents: true, observationEvents: true };

export async function signup(options: { deps: Deps; input: SignupInput; client: ClientInfo }) {
  const { deps, input, client } = options;
  if (!deps.env.SIGNUP_ENABLED && !input.invitationToken)
    throw new AppError("SIGNUP_DISABLED", "Signup is disabled on this server: only the link in an invitation email lets you create an account");
  // Counted before the password is hashed (an argon2 run), and atomically: signups sent at once take turns at the count.
  if (client.ip) {
    const ip = addressKey(client.ip);
    const perHour = deps.env.SIGNUPS_PER_IP_PER_HOUR;
    const refusal = (wait: string) => `Too many signups from this address: at most ${perHour} an hour; try again in ${wait}`;
    await inTransaction(deps, (t) => countAttempt({ t, rules: [{ bucket: "signup-ip", key: ip, limit: perHour, windowMs: 3600_000, refusal }] }));
  }
  if (input.invitationToken) await requireInvitationToSignUp({ deps, token: input.invitationToken, email: input.email });
  const doc: UserDoc = {
    email: input.email,
    name: input.name,
    passwordHash: await hashPassword({ env: deps.env, password: input.password }),
    roles: [],
    notificationPreferences: defaultNotificationPreferences,
    avatar: null,
  };
  try {
    return await inTransaction(deps, async (t) => {
      const user = await usersCollection.insert(t.tx, doc);
      const token = await createSession({ t, userId: user.id, client });
      return { user: presentUser(user), token };
    });
  } catch (error) {
    // Named on the field as the admin's and the user's own email changes name it, so a form shows it where it belongs.
    if (isUniqueViolation({ error, constraint: "users_email_lower_key" }))
      throw new AppError("EMAIL_TAKEN", "An account with this email already exists", {
        errors: [{ path: "email", message: "An account with this email already exists: sign in, or reset its password." }],
      });
    throw error;
  }
}

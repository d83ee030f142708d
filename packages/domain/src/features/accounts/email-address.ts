import { tables } from "@meridian/db";
import { and, eq, ne } from "drizzle-orm";
import { appLink } from "../../platform/email/app-link";
import { enqueueEmail } from "../../platform/email/outbox";
import { AppError } from "../../platform/errors";
import type { InTransaction } from "../../platform/transaction";

/** Another account signs in with this address (compared case-insensitively, as the unique index does). */
export const emailTaken = () =>
  new AppError("EMAIL_TAKEN", "An account with this email already exists", {
    errors: [{ path: "email", message: "Another account already uses this email address." }],
  });

/** An address as a notice to someone else may show it: its first character and its domain ("j***@example.org"). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  return `${Array.from(email.slice(0, Math.max(at, 0)))[0] ?? ""}***${email.slice(at)}`;
}

/** An account other than `userId` signs in with this address, in any case. */
export async function emailHeldByAnother(options: { t: Pick<InTransaction, "tx">; email: string; userId: string }): Promise<boolean> {
  const { users } = tables;
  const [holder] = await options.t.tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.emailLower, options.email.toLowerCase()), ne(users.id, options.userId)))
    .limit(1);
  return holder !== undefined;
}

/**
 * What an account's move to a new address leaves behind, in the change's transaction: the reset
 * links mailed to the old address stop working (whoever reads that mailbox may no longer be the
 * account's owner), and the old address is told, the new one masked, so that a hijack is noticed.
 * `how` says who made the change, in the notice's words.
 */
export async function retireOldAddress(options: {
  t: InTransaction;
  user: { id: string; name: string; email: string };
  newEmail: string;
  how: "by an administrator" | "by its link";
}) {
  const { t, user, newEmail } = options;
  await t.tx.delete(tables.passwordResets).where(eq(tables.passwordResets.userId, user.id));
  const account = `your Meridian account (${appLink({ deps: t, path: "/" })})`;
  const what =
    options.how === "by an administrator"
      ? `A server administrator changed the email address of ${account} from this address to ${maskEmail(newEmail)}.`
      : `The email address of ${account} was changed from this address to ${maskEmail(newEmail)}, with the link sent there.`;
  await enqueueEmail({
    t,
    kind: "email_changed",
    to: user.email,
    subject: "The email address of your Meridian account was changed",
    text:
      `Hello ${user.name},\n\n${what}\nYou now sign in with the new address, and Meridian's mail goes there from now on; ` +
      `password reset links sent here before no longer work.\nIf you did not expect this, contact your server administrator at once.\n`,
  });
}

/**
 * Tells the address an administrator moved an account to that it now signs in there: an administrator
 * mostly corrects an address because the old one was mistyped or is gone, so the notice to the old one
 * may reach nobody, and the owner would otherwise learn of the change only at a refused sign-in.
 */
export async function welcomeNewAddress(options: { t: InTransaction; name: string; email: string }) {
  const { t, name, email } = options;
  await enqueueEmail({
    t,
    kind: "email_set",
    to: email,
    subject: "You now sign in to Meridian with this address",
    text:
      `Hello ${name},\n\nA server administrator made this address the sign-in address of your Meridian account ` +
      `(${appLink({ deps: t, path: "/" })}). Sign in with it from now on; your password is unchanged, and Meridian's mail comes here.\n` +
      `If you have no account there, tell the server's administrator: someone may have typed this address by mistake.\n`,
  });
}

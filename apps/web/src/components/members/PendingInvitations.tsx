import { useState, type ReactNode } from "react";
import { MailCheck, RotateCw, X } from "lucide-react";
import { Alert } from "../Alert";
import { Badge } from "../Badge";
import { Button } from "../Button";
import { SuccessNotice } from "../SuccessNotice";
import { ActionsCell, ActionsTh, DataTable, td, Th } from "../Table";
import { Time } from "../Time";
import { summarizeError } from "../../lib/errors";

export interface PendingInvitation {
  id: string;
  email: string;
  expiresAt: string;
  createdAt: string;
  invitedBy: { name: string };
  expired: boolean;
}

/**
 * The invitations of an organization, observatory or project that nobody has accepted yet, for those
 * who manage its members: what each grants, who sent it, until when it works; resend (a new link for
 * another seven days, the old one stops working) and revoke.
 */
export function PendingInvitations<T extends PendingInvitation>({
  label,
  invitations,
  grants,
  resend,
  revoke,
}: {
  /** "organization", "observatory", "project": for the headings and names. */
  label: string;
  invitations: T[];
  grants(invitation: T): ReactNode;
  resend(invitation: T): Promise<unknown>;
  revoke(invitation: T): Promise<unknown>;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  // The last one revoked still leaves its notice.
  if (invitations.length === 0 && !notice && !failure) return null;

  const act = async (invitation: T, action: "resend" | "revoke") => {
    setBusy(`${action}:${invitation.id}`);
    setNotice(null);
    setFailure(null);
    try {
      if (action === "resend") {
        await resend(invitation);
        setNotice(`A new invitation went to ${invitation.email}; the earlier link no longer works.`);
      } else {
        await revoke(invitation);
        setNotice(`The invitation to ${invitation.email} was revoked.`);
      }
    } catch (error) {
      setFailure(`Could not ${action} the invitation to ${invitation.email}: ${summarizeError(error).message}`);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby={`${label}-invitations-title`}>
      <h2 id={`${label}-invitations-title`} className="mb-3 text-base font-semibold text-slate-900">
        Pending invitations<span className="ml-2 text-sm font-normal text-slate-500">{invitations.length}</span>
      </h2>
      <SuccessNotice message={notice} className="mb-3" />
      {failure ? (
        <Alert tone="error" className="mb-3">
          {failure}
        </Alert>
      ) : null}
      {invitations.length === 0 ? null : (
        <DataTable
          stackOnPhone
          label={`Pending invitations to the ${label}`}
          columns={
            <>
              <Th>Email</Th>
              <Th>Grants</Th>
              <Th>Invited by</Th>
              <Th>Link works until</Th>
              <ActionsTh />
            </>
          }
        >
          {invitations.map((invitation) => (
            <tr key={invitation.id}>
              <td className={`${td} break-all`}>{invitation.email}</td>
              <td className={td}>{grants(invitation)}</td>
              <td className={td}>{invitation.invitedBy.name}</td>
              <td className={td}>{invitation.expired ? <Badge tone="amber">Expired</Badge> : <Time iso={invitation.expiresAt} zone={undefined} />}</td>
              <ActionsCell>
                <Button
                  variant="ghost"
                  aria-label={`Resend the invitation to ${invitation.email}`}
                  busy={busy === `resend:${invitation.id}`}
                  disabled={busy !== null}
                  icon={invitation.expired ? <RotateCw aria-hidden="true" className="size-4" /> : <MailCheck aria-hidden="true" className="size-4" />}
                  onClick={() => void act(invitation, "resend")}
                >
                  Resend
                </Button>
                <Button
                  variant="ghost"
                  aria-label={`Revoke the invitation to ${invitation.email}`}
                  busy={busy === `revoke:${invitation.id}`}
                  disabled={busy !== null}
                  icon={<X aria-hidden="true" className="size-4 text-red-600" />}
                  onClick={() => void act(invitation, "revoke")}
                >
                  Revoke
                </Button>
              </ActionsCell>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

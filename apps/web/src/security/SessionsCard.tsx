import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { LogOut, MonitorSmartphone } from "lucide-react";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { QueryState } from "../components/QueryState";
import { SuccessNotice } from "../components/SuccessNotice";
import { formatDateTime } from "../lib/format";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import { queryClient, trpc } from "../trpc";
import { describeUserAgent } from "./user-agent";

interface SessionRow {
  id: string;
  createdAt: string;
  lastUsedAt: string | null;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

const refreshSessions = () => queryClient.invalidateQueries(trpc.user.sessions.queryFilter());

/** This browser first, then the most recently used. */
const byRelevance = (a: SessionRow, b: SessionRow) =>
  Number(b.current) - Number(a.current) || (b.lastUsedAt ?? b.createdAt).localeCompare(a.lastUsedAt ?? a.createdAt);

export function SessionsCard() {
  const sessions = useQuery(trpc.user.sessions.queryOptions());
  const [notice, setNotice] = useState<string | null>(null);
  const revokeOne = useConfirmedMutation({
    mutation: trpc.user.revokeSession.mutationOptions(),
    variables: (session: SessionRow) => ({ id: session.id }),
    onSuccess: async (session) => {
      setNotice(`${describeUserAgent(session.userAgent)} was signed out.`);
      await refreshSessions();
    },
  });
  const revokeOthers = useConfirmedMutation({
    mutation: trpc.user.revokeOtherSessions.mutationOptions(),
    variables: () => undefined,
    onSuccess: async () => {
      setNotice("Every other session was signed out.");
      await refreshSessions();
    },
  });
  const rows = [...(sessions.data?.items ?? [])].sort(byRelevance);
  const others = rows.filter((session) => !session.current).length;

  return (
    <Card
      title="Sessions"
      description="Where you are signed in. Sign out any session you do not recognize, then change your password."
      footer={
        <Button variant="secondary" icon={<LogOut aria-hidden="true" className="size-4" />} disabled={others === 0} onClick={() => revokeOthers.ask(true)}>
          Sign out other sessions
        </Button>
      }
    >
      <SuccessNotice message={notice} className="mb-4" />
      <QueryState query={sessions} loading="Loading your sessions" error="Could not load your sessions">
        {() => (
          <ul aria-label="Sessions" className="-my-3 divide-y divide-slate-100">
            {rows.map((session) => {
              const device = describeUserAgent(session.userAgent);
              return (
                <li key={session.id} className="flex flex-col gap-3 py-3 sm:flex-row sm:items-center">
                  <MonitorSmartphone aria-hidden="true" className="hidden size-5 shrink-0 text-slate-400 sm:block" />
                  <div className="min-w-0 flex-1">
                    <p className="flex flex-wrap items-center gap-2 text-sm font-medium text-slate-900">
                      <span title={session.userAgent ?? undefined}>{device}</span>
                      {session.current ? <Badge tone="emerald">This session</Badge> : null}
                    </p>
                    <p className="mt-0.5 text-sm text-slate-500">
                      Signed in {formatDateTime(session.createdAt)}
                      {session.ip ? ` from ${session.ip}` : null}
                      <span className="mx-2" aria-hidden="true">
                        ·
                      </span>
                      {session.lastUsedAt ? `Last used ${formatDateTime(session.lastUsedAt)}` : "Not used since"}
                    </p>
                  </div>
                  {session.current ? null : (
                    <Button
                      variant="secondary"
                      aria-label={`Sign out ${device}, signed in ${formatDateTime(session.createdAt)}`}
                      onClick={() => revokeOne.ask(session)}
                    >
                      Sign out
                    </Button>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </QueryState>
      <ConfirmDialog {...revokeOne.dialog} title="Sign out this session?" confirmLabel="Sign out">
        <strong className="font-semibold text-slate-900">{revokeOne.target ? describeUserAgent(revokeOne.target.userAgent) : null}</strong> will have to sign in
        again.
      </ConfirmDialog>
      <ConfirmDialog {...revokeOthers.dialog} title="Sign out other sessions?" confirmLabel="Sign out other sessions">
        Every browser and device signed in as you, except this one, will have to sign in again.
      </ConfirmDialog>
    </Card>
  );
}

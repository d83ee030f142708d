import { useState } from "react";
import { useMutation, useQueries, useQuery } from "@tanstack/react-query";
import { activeStatuses, type ObservationStatus } from "@meridian/rules";
import { Trash2 } from "lucide-react";
import { useNavigate } from "react-router-dom";
import { isServerAdmin, useMe } from "../auth/useMe";
import { Button } from "../components/Button";
import { FormDialog } from "../components/FormDialog";
import { isConfirmed, TypeToConfirm } from "../components/members/TypeToConfirm";
import { summarizeError } from "../lib/errors";
import { refreshObservations } from "../observations/ObservationLiveUpdates";
import { trpc } from "../trpc";
import type { Observatory } from "./permissions";
import { refreshObservatories } from "./refresh";

const COUNT_LIMIT = 200;

/** The owner, a manager of observatories of the owning organization (or its owner), and server admins remove an observatory. */
function useMayRemove(observatory: Observatory) {
  const me = useMe();
  const { owner } = observatory;
  const organization = useQuery(trpc.organizations.get.queryOptions({ id: owner.id }, { enabled: owner.kind === "organization", retry: false }));
  if (isServerAdmin(me.data)) return true;
  if (owner.kind === "user") return owner.id === me.data?.id;
  return Boolean(organization.data?.myPermissions.can_manage_observatories);
}

/** How many of the observatory's observations are in each status (up to COUNT_LIMIT each), read when the dialog opens. */
function useStatusCounts(observatoryId: string, statuses: readonly ObservationStatus[]) {
  const queries = useQueries({
    queries: statuses.map((status) => trpc.observations.list.queryOptions({ observatoryId, status, limit: COUNT_LIMIT }, { staleTime: 0 })),
  });
  const count = (query: (typeof queries)[number]) => (query.data ? { n: query.data.items.length, more: query.data.nextCursor !== null } : null);
  return { counts: queries.map(count), loading: queries.some((query) => query.isPending) };
}

const howMany = (count: { n: number; more: boolean } | null | undefined) => (count ? `${count.n}${count.more ? "+" : ""}` : "?");

function RemoveDialog({ observatory, onClose }: { observatory: Observatory; onClose(): void }) {
  const navigate = useNavigate();
  const [typed, setTyped] = useState("");
  const waiting = useStatusCounts(observatory.id, ["pending", "paused"]);
  const running = useStatusCounts(observatory.id, activeStatuses);
  const [pending, paused] = waiting.counts;
  const busy = running.counts.some((count) => (count?.n ?? 0) > 0);
  const remove = useMutation(
    trpc.observatories.remove.mutationOptions({
      onSuccess: async () => {
        // Leave first: refreshing while this page is shown would refetch what was just removed.
        void navigate("/observatories", { replace: true, state: { notice: `${observatory.name} was removed.` } });
        await Promise.all([refreshObservatories(), refreshObservations()]);
      },
    }),
  );
  const cancelled = (pending?.n ?? 0) + (paused?.n ?? 0);
  return (
    <FormDialog
      title={`Remove ${observatory.name}?`}
      submitLabel="Remove observatory"
      submitVariant="danger"
      submitDisabled={busy || running.loading || waiting.loading || !isConfirmed(typed, [observatory.name])}
      busy={remove.isPending}
      error={remove.isError ? summarizeError(remove.error).message : null}
      onSubmit={() => remove.mutate({ id: observatory.id })}
      onClose={onClose}
    >
      {waiting.loading || running.loading ? (
        <p className="text-sm text-slate-500">Counting its observations…</p>
      ) : busy ? (
        <p role="alert" className="text-sm text-red-700">
          It is running an observation (assigned or in progress). It can be removed once that observation has ended or been cancelled.
        </p>
      ) : (
        <p className="text-sm text-slate-700" data-testid="removal-queue">
          {cancelled === 0
            ? "No observation waits in its queue."
            : `Its queue is cancelled: ${howMany(pending)} pending and ${howMany(paused)} paused observations, each with the reason “observatory removed”.`}
        </p>
      )}
      <p className="text-sm text-slate-600">
        Its plugin keys stop working and its plugin is disconnected, it leaves every list, and its announcements stop showing (active ones are cancelled,
        acknowledged ones end). Observations that ended, with their files and history, stay readable to those who could read them. This cannot be undone.
      </p>
      <TypeToConfirm what="the observatory's name" accepted={[observatory.name]} value={typed} onChange={setTyped} />
    </FormDialog>
  );
}

/** A red-bordered card for those who may remove the observatory, with a typed confirmation that says what becomes of its queue. */
export function RemoveObservatoryCard({ observatory }: { observatory: Observatory }) {
  const mayRemove = useMayRemove(observatory);
  const [open, setOpen] = useState(false);
  if (!mayRemove) return null;
  return (
    <section aria-labelledby="remove-observatory-title" className="mt-6 rounded-lg bg-white shadow-sm ring-1 ring-red-200">
      <div className="flex flex-col gap-3 px-4 py-5 sm:flex-row sm:items-center sm:justify-between sm:px-6">
        <div className="min-w-0">
          <h2 id="remove-observatory-title" className="text-base font-semibold text-red-700">
            Remove observatory
          </h2>
          <p className="mt-1 text-sm text-slate-600">Cancels what waits in its queue, stops its plugin keys and takes it out of every list.</p>
        </div>
        <Button variant="danger" icon={<Trash2 aria-hidden="true" className="size-4" />} onClick={() => setOpen(true)} className="shrink-0">
          Remove observatory
        </Button>
      </div>
      {open ? <RemoveDialog observatory={observatory} onClose={() => setOpen(false)} /> : null}
    </section>
  );
}

import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Ban } from "lucide-react";
import { useParams } from "react-router-dom";
import { isFinalStatus } from "@meridian/rules";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { DetailPage } from "../components/DetailPage";
import { PageHeader } from "../components/PageHeader";
import { useDocumentTitle } from "../lib/document-title";
import { summarizeError } from "../lib/errors";
import { formatDateTime } from "../lib/format";
import { ForecastLine } from "../observations/ForecastLine";
import { formatDec, formatRa, typeLabels, type Observation } from "../observations/labels";
import { ObservationFiles } from "../observations/ObservationFiles";
import { refreshObservations } from "../observations/ObservationLiveUpdates";
import { ObservationTimeline } from "../observations/ObservationTimeline";
import { StatusBadge } from "../observations/StatusBadge";
import { trpc } from "../trpc";

export function ObservationPage() {
  const { id = "" } = useParams();
  const observation = useQuery(trpc.observations.get.queryOptions({ id }, { staleTime: 0 }));
  return (
    <DetailPage query={observation} what="observation" backTo="/observations" backText="Observations" backLabel="Back to your observations">
      {(data) => <ObservationView observation={data} />}
    </DetailPage>
  );
}

function Detail({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="mt-0.5 text-sm text-slate-900">{children}</dd>
    </div>
  );
}

function ObservationView({ observation }: { observation: Observation }) {
  useDocumentTitle(`${observation.name} · Observations`);
  const [confirming, setConfirming] = useState(false);
  const observatory = useQuery(trpc.observatories.get.queryOptions({ id: observation.observatoryId }, { retry: false }));
  const cancel = useMutation(
    trpc.observations.cancel.mutationOptions({
      onSuccess: async () => {
        setConfirming(false);
        await refreshObservations();
      },
    }),
  );
  const { constraints } = observation;
  return (
    <>
      <PageHeader
        title={observation.name}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <StatusBadge status={observation.status} />
            <span>
              {typeLabels[observation.type]} · priority {observation.priority} · {observatory.data?.name ?? "observatory"}
            </span>
          </span>
        }
        actions={
          isFinalStatus(observation.status) ? null : (
            <Button variant="danger" icon={<Ban aria-hidden="true" className="size-4" />} onClick={() => setConfirming(true)}>
              Cancel observation
            </Button>
          )
        }
      />
      {observation.stale ? (
        <Alert tone="error" className="mb-4">
          Stuck: {observation.stale.status.replace("_", " ")} since {formatDateTime(observation.stale.since)}. The observatory's operators were told.
        </Alert>
      ) : null}
      <ForecastLine observation={observation} />
      {observation.statusReason ? <p className="mb-4 text-sm text-slate-600">Reason: {observation.statusReason}</p> : null}
      <div className="grid gap-6 lg:grid-cols-3">
        <div className="flex min-w-0 flex-col gap-6 lg:col-span-2">
          <Card title="Targets">
            <ul className="flex flex-col gap-3">
              {observation.targets.map((target, index) => (
                <li key={index}>
                  <p className="text-sm font-medium text-slate-900">{target.name}</p>
                  <p className="font-mono text-xs text-slate-500">
                    RA {formatRa(target.ra)} · Dec {formatDec(target.dec)} · {target.epoch}
                  </p>
                  <p className="text-xs text-slate-600">
                    {target.exposures
                      .map((exposure) => `${exposure.count} × ${exposure.exposureSeconds} s ${exposure.filter} (bin ${exposure.binning})`)
                      .join(", ")}
                  </p>
                </li>
              ))}
            </ul>
          </Card>
          <Card title="Files">
            <ObservationFiles observationId={observation.id} />
          </Card>
        </div>
        <div className="flex min-w-0 flex-col gap-6">
          <Card title="Status timeline">
            <ObservationTimeline observationId={observation.id} status={observation.status} statusChangedAt={observation.statusChangedAt} />
          </Card>
          <Card title="Constraints">
            <dl className="grid grid-cols-2 gap-3">
              <Detail label="Darkness">{observation.bypassDarkness ? "Not required" : `${constraints.twilight} twilight over`}</Detail>
              <Detail label="Minimum altitude">{constraints.minAltitude}°</Detail>
              <Detail label="Maximum airmass">{constraints.maxAirmass ?? "—"}</Detail>
              <Detail label="Moon distance">{constraints.moonDistance != null ? `${constraints.moonDistance}°` : "—"}</Detail>
              <Detail label="Not before">{formatDateTime(observation.fixedTimeStart)}</Detail>
              <Detail label="Not after">{formatDateTime(observation.fixedTimeEnd)}</Detail>
            </dl>
          </Card>
        </div>
      </div>
      <ConfirmDialog
        open={confirming}
        title="Cancel this observation?"
        confirmLabel="Cancel observation"
        cancelLabel="Keep it"
        busy={cancel.isPending}
        error={cancel.error ? summarizeError(cancel.error).message : null}
        onConfirm={() => cancel.mutate({ id: observation.id })}
        onCancel={() => setConfirming(false)}
      >
        It will not be observed. If the observatory is running it now, it is told to stop.
      </ConfirmDialog>
    </>
  );
}

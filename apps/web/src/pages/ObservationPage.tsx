import { useQuery } from "@tanstack/react-query";
import { useParams } from "react-router-dom";
import { Alert } from "../components/Alert";
import { Card } from "../components/Card";
import { DetailPage } from "../components/DetailPage";
import { NavigationNotice } from "../components/NavigationNotice";
import { PageHeader } from "../components/PageHeader";
import { useDocumentTitle } from "../lib/document-title";
import { Time } from "../components/Time";
import { ForecastLine } from "../observations/ForecastLine";
import { ExposureProgress } from "../observations/frames/ExposureProgress";
import { RepeatedAs, RepeatOf } from "../observations/frames/RepeatOf";
import { formatDec, formatRa, homeObservatoryId, typeLabels, whereItRuns, type Observation } from "../observations/labels";
import { useObservationActions } from "../observations/ObservationActions";
import { ObservationFiles } from "../observations/ObservationFiles";
import { ObservationTimeline } from "../observations/ObservationTimeline";
import { ObservationTiming } from "../observations/ObservationTiming";
import { StatusBadge } from "../observations/StatusBadge";
import { useObservatoryNames } from "../observations/useObservatoryNames";
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
  const observatory = useQuery(trpc.observatories.get.queryOptions({ id: homeObservatoryId(observation) }, { retry: false }));
  // Its frames are graded by the project's checks: a rejection is said with the limit it broke, or without it to a reader who may not see the project.
  const project = useQuery(trpc.projects.get.queryOptions({ id: observation.projectId }, { retry: false }));
  // One the caller cannot view, or that was removed, is still named when the caller could view it.
  const observatoryName = useObservatoryNames(
    observatory.data ? [observatory.data] : observatory.isError ? [] : undefined,
    observation.candidateObservatoryIds,
  );
  const actions = useObservationActions(observation, observatory.data);
  const { constraints } = observation;
  return (
    <>
      <PageHeader
        title={observation.name}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <StatusBadge status={observation.status} />
            <span>
              {typeLabels[observation.type]} · priority {observation.priority} · {whereItRuns(observation, observatoryName) ?? "observatory"}
            </span>
          </span>
        }
        actions={actions.buttons}
      />
      <NavigationNotice />
      {actions.message}
      {observation.stale ? (
        <Alert tone="error" className="mb-4">
          Stuck: {observation.stale.status.replace("_", " ")} since <Time iso={observation.stale.since} zone={observatory.data?.timeZone} />. The observatory's
          operators were told.
        </Alert>
      ) : null}
      <ForecastLine observation={observation} observatoryName={observatoryName} />
      {observation.statusReason ? <p className="mb-4 text-sm text-slate-600">Reason: {observation.statusReason}</p> : null}
      {observation.repeatOf ? <RepeatOf id={observation.repeatOf} /> : null}
      {observation.repeatId ? <RepeatedAs id={observation.repeatId} /> : null}
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
          {observation.progress ? (
            <Card title="Progress" description="Frames wanted, taken and accepted for each exposure line; only accepted frames count toward it.">
              <ExposureProgress lines={observation.progress} />
            </Card>
          ) : null}
          <Card title="Files">
            <ObservationFiles observationId={observation.id} timeZone={observatory.data?.timeZone} grading={project.data?.frameGrading} />
          </Card>
        </div>
        <div className="flex min-w-0 flex-col gap-6">
          <ObservationTiming observation={observation} timeZone={observatory.data?.timeZone} />
          <Card title="Status timeline">
            <ObservationTimeline
              observationId={observation.id}
              status={observation.status}
              statusChangedAt={observation.statusChangedAt}
              timeZone={observatory.data?.timeZone}
            />
          </Card>
          <Card title="Constraints">
            <dl className="grid grid-cols-2 gap-3">
              <Detail label="Darkness">{observation.bypassDarkness ? "Not required" : `${constraints.twilight} twilight over`}</Detail>
              <Detail label="Minimum altitude">{constraints.minAltitude}°</Detail>
              <Detail label="Maximum airmass">{constraints.maxAirmass ?? "—"}</Detail>
              <Detail label="Moon distance">{constraints.moonDistance != null ? `${constraints.moonDistance}°` : "—"}</Detail>
            </dl>
          </Card>
        </div>
      </div>
      {actions.dialogs}
    </>
  );
}

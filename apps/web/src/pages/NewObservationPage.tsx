import { useEffect, useRef } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "react-router-dom";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { PageHeader } from "../components/PageHeader";
import { useDocumentTitle } from "../lib/document-title";
import { useLeaveConfirmation } from "../lib/useLeaveConfirmation";
import { formProblem } from "../lib/form-errors";
import { refreshObservations } from "../observations/ObservationLiveUpdates";
import { toInput } from "../observations/wizard/draft";
import { NotificationsStep } from "../observations/wizard/NotificationsStep";
import { ObservationStep } from "../observations/wizard/ObservationStep";
import { MissingChoices } from "../observations/wizard/MissingChoices";
import { ReviewStep } from "../observations/wizard/ReviewStep";
import { SchedulingStep } from "../observations/wizard/SchedulingStep";
import { REVIEW_STEP, stepOf, steps } from "../observations/wizard/steps";
import { TargetsStep } from "../observations/wizard/TargetsStep";
import { useWizard } from "../observations/wizard/useWizard";
import { storageKinds } from "../organizations/labels";
import { trpc } from "../trpc";

/**
 * The submission wizard: each field is checked as it is typed with the API's own rules and words
 * (`@meridian/rules/observations`), and Next does not go on while its step has a problem.
 */
export function NewObservationPage() {
  useDocumentTitle("New observation");
  const navigate = useNavigate();
  const observatories = useQuery(trpc.observatories.list.queryOptions({ limit: 200 }));
  // Taken apart at once: the form's and the heading's refs stay apart from the values read while rendering.
  const { draft, step, fields, form, heading, blocking, timeZone, goTo, reached, edited, next, refusedByServer, preset } = useWizard(
    (id) => observatories.data?.items.find((observatory) => observatory.id === id)?.timeZone,
  );

  const projects = useQuery(trpc.projects.list.queryOptions(undefined));
  const projectChoices = (projects.data?.items ?? []).filter((project) => project.status === "active").map(({ id, name }) => ({ id, label: name }));
  const observatoryChoices = (observatories.data?.items ?? [])
    .filter((observatory) => observatory.myPermissions?.can_observe)
    .map(({ id, name, connection, filters }) => ({ id, label: `${name}${connection.online ? " (online)" : ""}`, filters }));
  const organizationId = projects.data?.items.find((project) => project.id === draft.projectId)?.organizationId ?? null;
  // A project member outside the organization cannot read its destinations: then there is nothing to offer.
  const organization = useQuery(trpc.organizations.get.queryOptions({ id: organizationId ?? "" }, { enabled: organizationId !== null, retry: false }));
  const destinationChoices =
    organizationId && organization.data?.id === organizationId
      ? organization.data.externalStorage.map(({ id, label, kind }) => ({ id, label: `${label} (${storageKinds[kind].label})` }))
      : [];
  // The only project or observatory there is, chosen for the person, once each list is read.
  const onlyProject = projects.isSuccess && projectChoices.length === 1 ? projectChoices[0]!.id : null;
  const onlyObservatory = observatories.isSuccess && observatoryChoices.length === 1 ? observatoryChoices[0]!.id : null;
  const presetDone = useRef({ project: false, observatory: false });
  useEffect(() => {
    if (onlyProject && !presetDone.current.project && draft.projectId === "") preset({ projectId: onlyProject });
    if (onlyObservatory && !presetDone.current.observatory && draft.observatoryId === "") preset({ observatoryId: onlyObservatory });
    if (onlyProject) presetDone.current.project = true;
    if (onlyObservatory) presetDone.current.observatory = true;
  }, [onlyProject, onlyObservatory, draft.projectId, draft.observatoryId, preset]);
  const submitted = useRef(false);
  const leaving = useLeaveConfirmation(() => edited && !submitted.current);
  const create = useMutation(
    // onSuccess writes `submitted` after the request, never while rendering; a ref, so the navigation it starts already sees it.
    // eslint-disable-next-line react-hooks/refs -- the compiler cannot tell the callback from a call made during render
    trpc.observations.create.mutationOptions({
      onSuccess: async (observation) => {
        submitted.current = true;
        await refreshObservations();
        void navigate(`/observations/${observation.id}`);
      },
      onError: (error) => refusedByServer(formProblem(error)?.fieldErrors ?? {}),
    }),
  );
  const problem = formProblem(create.error);
  // The server's refusal when no field of a step shows it (a missing project, a closed window on another step's field is shown there).
  const general = problem && !Object.keys(problem.fieldErrors).some((path) => stepOf(path) !== REVIEW_STEP) ? problem.message : null;
  const { title, description } = steps[step]!;
  // The observatories it may run at, whose filters its exposures choose from: the one chosen, or each one ticked.
  const chosenIds = draft.where === "any" ? draft.candidateObservatoryIds : [draft.observatoryId];
  const chosenSites = chosenIds.flatMap((id) => {
    const chosen = observatories.data?.items.find((observatory) => observatory.id === id);
    return chosen ? [{ id: chosen.id, name: chosen.name, filters: chosen.filters }] : [];
  });
  const nameOf = (choices: Array<{ id: string; label: string }>, id: string) => choices.find((choice) => choice.id === id)?.label ?? id;

  return (
    <>
      <Link to="/observations" className="mb-3 inline-block text-sm font-medium text-slate-500 hover:text-slate-700">
        ← Observations
      </Link>
      <PageHeader title="New observation" description="Submit targets to an observatory; dispatch sends it when it can be observed." />
      <ol aria-label="Steps" className="mb-6 flex flex-wrap gap-2 text-sm">
        {steps.map((entry, index) => {
          const label = `${index + 1}. ${entry.title}`;
          const pill = "rounded-full px-3 py-1 ring-1";
          return (
            <li key={entry.title} aria-current={index === step ? "step" : undefined}>
              {index === step ? (
                <span className={`${pill} inline-block bg-indigo-600 text-white ring-indigo-600`}>{label}</span>
              ) : index <= reached ? (
                // A step shown before: back to it (or forward again) without Next's checks, which Submit makes anyway.
                <button
                  type="button"
                  onClick={() => goTo(index)}
                  className={
                    `${pill} text-indigo-700 ring-indigo-200 hover:bg-indigo-50 ` +
                    "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
                  }
                >
                  {label}
                </button>
              ) : (
                <span className={`${pill} inline-block text-slate-500 ring-slate-200`}>{label}</span>
              )}
            </li>
          );
        })}
      </ol>
      {step === 0 ? (
        <MissingChoices
          noProject={projects.isSuccess && projectChoices.length === 0}
          noObservatory={observatories.isSuccess && observatoryChoices.length === 0}
          onProject={(projectId) => preset({ projectId })}
          onObservatory={(observatoryId) => preset({ observatoryId })}
        />
      ) : null}
      {leaving}
      <form
        ref={form}
        noValidate
        aria-labelledby="wizard-step-title"
        onSubmit={(event) => {
          event.preventDefault();
          if (next()) create.mutate(toInput(draft, timeZone.zone));
        }}
      >
        <section className="rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
          <header className="border-b border-slate-100 px-4 py-4 sm:px-6">
            <h2 id="wizard-step-title" ref={heading} tabIndex={-1} className="text-base font-semibold text-slate-900 focus:outline-none">
              Step {step + 1} of {steps.length}: {title}
            </h2>
            <p className="mt-1 text-sm text-slate-500">{description}</p>
          </header>
          <div className="px-4 py-5 sm:px-6">
            {blocking > 0 ? (
              <Alert tone="error" className="mb-4">
                {blocking === 1 ? "One field needs" : `${blocking} fields need`} a change before you can go on.
              </Alert>
            ) : null}
            {general && step === REVIEW_STEP ? (
              <Alert tone="error" className="mb-4">
                {general}
              </Alert>
            ) : null}
            {step === 0 ? <ObservationStep {...fields} projects={projectChoices} observatories={observatoryChoices} destinations={destinationChoices} /> : null}
            {step === 1 ? <TargetsStep {...fields} sites={chosenSites} /> : null}
            {step === 2 ? <SchedulingStep {...fields} /> : null}
            {step === 3 ? <NotificationsStep {...fields} /> : null}
            {step === REVIEW_STEP ? (
              <ReviewStep
                draft={draft}
                timeZone={timeZone.zone}
                projectName={nameOf(projectChoices, draft.projectId)}
                observatoryNames={chosenIds.map((id) => nameOf(observatoryChoices, id))}
                destinationName={draft.storageDestinationId ? nameOf(destinationChoices, draft.storageDestinationId) : null}
                goTo={goTo}
              />
            ) : null}
          </div>
        </section>
        <div className="mt-4 flex flex-wrap justify-between gap-3">
          <Button variant="secondary" disabled={step === 0} onClick={() => goTo(step - 1)}>
            Back
          </Button>
          <Button type="submit" busy={create.isPending}>
            {step < REVIEW_STEP ? "Next" : "Submit observation"}
          </Button>
        </div>
      </form>
    </>
  );
}

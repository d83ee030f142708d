import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "react-router-dom";
import { notifiedStatuses, observationTypes, twilightKinds } from "@meridian/rules";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { CheckboxField } from "../components/CheckboxField";
import { PageHeader } from "../components/PageHeader";
import { SelectField } from "../components/SelectField";
import { TextField } from "../components/TextField";
import { useDocumentTitle } from "../lib/document-title";
import { formProblem } from "../lib/form-errors";
import { observationStatusInfo, typeLabels } from "../observations/labels";
import { refreshObservations } from "../observations/ObservationLiveUpdates";
import { asNumber, newTarget, TargetFields, targetsInput, type TargetDraft } from "../observations/TargetFields";
import { trpc } from "../trpc";

const steps = ["Where", "Targets", "Constraints", "Notifications"] as const;
/** Which step holds a field the server refused, so the wizard can go back to it. */
const stepOf = (path: string) => (/^(name|projectId|observatoryId)/.test(path) ? 0 : path.startsWith("targets") ? 1 : path.startsWith("notifications") ? 3 : 2);
const localInput = (value: string) => (value ? new Date(value).toISOString() : null);

export function NewObservationPage() {
  useDocumentTitle("New observation");
  const navigate = useNavigate();
  const [step, setStep] = useState(0);
  const [name, setName] = useState("");
  const [projectId, setProjectId] = useState("");
  const [observatoryId, setObservatoryId] = useState("");
  const [targets, setTargets] = useState<TargetDraft[]>([newTarget()]);
  const [type, setType] = useState<(typeof observationTypes)[number]>("flexible");
  const [priority, setPriority] = useState("5");
  const [twilight, setTwilight] = useState<(typeof twilightKinds)[number]>("astronomical");
  const [minAltitude, setMinAltitude] = useState("30");
  const [maxAirmass, setMaxAirmass] = useState("");
  const [moonDistance, setMoonDistance] = useState("");
  const [fixedTimeStart, setFixedTimeStart] = useState("");
  const [fixedTimeEnd, setFixedTimeEnd] = useState("");
  const [bypassDarkness, setBypassDarkness] = useState(false);
  const [email, setEmail] = useState(true);
  const [push, setPush] = useState(true);
  const [states, setStates] = useState<string[]>([...notifiedStatuses]);
  const [missing, setMissing] = useState<Record<string, string>>({});

  const projects = useQuery(trpc.projects.list.queryOptions(undefined));
  const observatories = useQuery(trpc.observatories.list.queryOptions({ limit: 200 }));
  const observable = observatories.data?.items.filter((observatory) => observatory.myPermissions?.can_observe) ?? [];
  const create = useMutation(
    trpc.observations.create.mutationOptions({
      onSuccess: async (observation) => {
        await refreshObservations();
        void navigate(`/observations/${observation.id}`);
      },
      onError: (error) => {
        const paths = Object.keys(formProblem(error)?.fieldErrors ?? {});
        if (paths.length > 0) setStep(Math.min(...paths.map(stepOf)));
      },
    }),
  );
  const problem = formProblem(create.error);
  const errors = { ...problem?.fieldErrors, ...missing };

  const checkStep = () => {
    const found: Record<string, string> = {};
    if (step === 0) {
      if (!name.trim()) found.name = "Give the observation a name.";
      if (!projectId) found.projectId = "Choose a project.";
      if (!observatoryId) found.observatoryId = "Choose an observatory.";
    }
    setMissing(found);
    return Object.keys(found).length === 0;
  };
  const submit = () =>
    create.mutate({
      name,
      projectId,
      observatoryId,
      type,
      priority: asNumber(priority),
      targets: targetsInput(targets) as never,
      constraints: {
        twilight,
        minAltitude: asNumber(minAltitude),
        maxAirmass: maxAirmass ? asNumber(maxAirmass) : null,
        moonDistance: moonDistance ? asNumber(moonDistance) : null,
      },
      fixedTimeStart: localInput(fixedTimeStart),
      fixedTimeEnd: localInput(fixedTimeEnd),
      bypassDarkness,
      notifications: { email, push, states: states as never },
    });

  return (
    <>
      <Link to="/observations" className="mb-3 inline-block text-sm font-medium text-slate-500 hover:text-slate-700">
        ← Observations
      </Link>
      <PageHeader title="New observation" description="Submit targets to an observatory; dispatch sends it when it can be observed." />
      <ol aria-label="Steps" className="mb-6 flex flex-wrap gap-2 text-sm">
        {steps.map((label, index) => (
          <li
            key={label}
            aria-current={index === step ? "step" : undefined}
            className={`rounded-full px-3 py-1 ring-1 ${index === step ? "bg-indigo-600 text-white ring-indigo-600" : "text-slate-600 ring-slate-200"}`}
          >
            {index + 1}. {label}
          </li>
        ))}
      </ol>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!checkStep()) return;
          if (step < steps.length - 1) setStep(step + 1);
          else submit();
        }}
      >
        <Card title={steps[step]}>
          {problem && !Object.keys(problem.fieldErrors).length ? (
            <Alert tone="error" className="mb-4">
              {problem.message}
            </Alert>
          ) : null}
          {step === 0 ? (
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField
                label="Name"
                required
                maxLength={200}
                value={name}
                onChange={(e) => setName(e.target.value)}
                error={errors.name}
                className="sm:col-span-2"
              />
              <SelectField label="Project" required value={projectId} onChange={(e) => setProjectId(e.target.value)} error={errors.projectId}>
                <option value="">Choose a project</option>
                {projects.data?.items
                  .filter((project) => project.status === "active")
                  .map((project) => (
                    <option key={project.id} value={project.id}>
                      {project.name}
                    </option>
                  ))}
              </SelectField>
              <SelectField
                label="Observatory"
                required
                value={observatoryId}
                onChange={(e) => setObservatoryId(e.target.value)}
                error={errors.observatoryId}
                hint="Observatories where you may observe."
              >
                <option value="">Choose an observatory</option>
                {observable.map((observatory) => (
                  <option key={observatory.id} value={observatory.id}>
                    {observatory.name}
                    {observatory.connection.online ? " (online)" : ""}
                  </option>
                ))}
              </SelectField>
            </div>
          ) : null}
          {step === 1 ? <TargetFields targets={targets} errors={errors} onChange={setTargets} /> : null}
          {step === 2 ? (
            <div className="grid gap-4 sm:grid-cols-2">
              <SelectField label="Type" value={type} onChange={(e) => setType(e.target.value as typeof type)} error={errors.type}>
                {observationTypes.map((value) => (
                  <option key={value} value={value}>
                    {typeLabels[value]}
                  </option>
                ))}
              </SelectField>
              <TextField
                label="Priority"
                hint="1 to 10; 10 goes first"
                inputMode="numeric"
                value={priority}
                onChange={(e) => setPriority(e.target.value)}
                error={errors.priority}
              />
              <SelectField
                label="Darkness"
                value={twilight}
                onChange={(e) => setTwilight(e.target.value as typeof twilight)}
                error={errors["constraints.twilight"]}
              >
                {twilightKinds.map((value) => (
                  <option key={value} value={value}>
                    After {value} twilight
                  </option>
                ))}
              </SelectField>
              <TextField
                label="Minimum altitude (°)"
                inputMode="decimal"
                value={minAltitude}
                onChange={(e) => setMinAltitude(e.target.value)}
                error={errors["constraints.minAltitude"]}
              />
              <TextField
                label="Maximum airmass"
                hint="Optional"
                inputMode="decimal"
                value={maxAirmass}
                onChange={(e) => setMaxAirmass(e.target.value)}
                error={errors["constraints.maxAirmass"]}
              />
              <TextField
                label="Moon distance (°)"
                hint="Optional"
                inputMode="decimal"
                value={moonDistance}
                onChange={(e) => setMoonDistance(e.target.value)}
                error={errors["constraints.moonDistance"]}
              />
              <TextField
                label="Not before"
                type="datetime-local"
                value={fixedTimeStart}
                onChange={(e) => setFixedTimeStart(e.target.value)}
                error={errors.fixedTimeStart}
              />
              <TextField
                label="Not after"
                type="datetime-local"
                value={fixedTimeEnd}
                onChange={(e) => setFixedTimeEnd(e.target.value)}
                error={errors.fixedTimeEnd}
              />
              <div className="sm:col-span-2">
                <CheckboxField
                  label="Observe in daylight or twilight too"
                  description="Skips the darkness rule (for bright targets)."
                  checked={bypassDarkness}
                  onChange={setBypassDarkness}
                />
              </div>
            </div>
          ) : null}
          {step === 3 ? (
            <div className="flex flex-col gap-4">
              <CheckboxField label="Email me" checked={email} onChange={setEmail} />
              <CheckboxField label="Push notifications" checked={push} onChange={setPush} />
              <fieldset>
                <legend className="text-sm font-medium text-slate-700">When it becomes</legend>
                <div className="mt-2 grid gap-2 sm:grid-cols-2">
                  {notifiedStatuses.map((status) => (
                    <CheckboxField
                      key={status}
                      label={observationStatusInfo[status].label}
                      checked={states.includes(status)}
                      onChange={(checked) => setStates(checked ? [...states, status] : states.filter((value) => value !== status))}
                    />
                  ))}
                </div>
              </fieldset>
            </div>
          ) : null}
        </Card>
        <div className="mt-4 flex flex-wrap justify-between gap-3">
          <Button variant="secondary" disabled={step === 0} onClick={() => setStep(step - 1)}>
            Back
          </Button>
          <Button type="submit" busy={create.isPending}>
            {step < steps.length - 1 ? "Next" : "Submit observation"}
          </Button>
        </div>
      </form>
    </>
  );
}

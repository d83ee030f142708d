import { useMemo, useRef, useState } from "react";
import { useMutation, useQueries, useQuery } from "@tanstack/react-query";
import { FormDialog } from "../../components/FormDialog";
import { TextField } from "../../components/TextField";
import { formProblem } from "../../lib/form-errors";
import { useTimeDisplay } from "../../lib/time-display";
import { typingZone, type TypingZone } from "../../lib/zone-time";
import { trpc } from "../../trpc";
import { homeObservatoryId, type Observation } from "../labels";
import { refreshObservations } from "../ObservationLiveUpdates";
import { draftProblems, type ObservationDraft } from "../wizard/draft";
import { NotificationsStep } from "../wizard/NotificationsStep";
import { SchedulingStep } from "../wizard/SchedulingStep";
import { stepPropsOf, textProps } from "../wizard/step-props";
import type { FilterSite } from "../wizard/FilterField";
import { TargetsStep } from "../wizard/TargetsStep";
import { changedFields, draftOf } from "./draft-of";

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="flex flex-col gap-4 border-t border-slate-100 pt-4 first:border-t-0 first:pt-0">
      <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
      {children}
    </section>
  );
}

interface EditProps {
  observation: Observation;
  onClose(): void;
  onSaved(): void;
}

/**
 * Edits a waiting observation (pending or paused; owner or can_operate) with the submission
 * wizard's own fields and checks; only what changed is sent, and the server's refusals show at
 * their fields. Its times show and are typed on its observatory's clocks, as in the wizard: the
 * fields wait for the observatory's zone (its page has read it already), or for the answer that it
 * cannot be read (then the browser's zone, named as such). Its filters are those its observatory reports, or with
 * candidates those each candidate the reader may view reports.
 */
export function EditObservationDialog(props: EditProps) {
  const home = homeObservatoryId(props.observation);
  const observatory = useQuery(trpc.observatories.get.queryOptions({ id: home }, { retry: false }));
  const others = useQueries({
    queries: props.observation.candidateObservatoryIds.filter((id) => id !== home).map((id) => trpc.observatories.get.queryOptions({ id }, { retry: false })),
  });
  const choice = useTimeDisplay();
  if (observatory.isPending || others.some((other) => other.isPending)) return null;
  const { data } = observatory;
  const sites = [data, ...others.map((other) => other.data)].flatMap((site) => (site ? [{ id: site.id, name: site.name, filters: site.filters }] : []));
  return <EditForm {...props} timeZone={typingZone(data?.timeZone, choice)} sites={sites} />;
}

function EditForm({ observation, onClose, onSaved, sites, ...props }: EditProps & { timeZone: TypingZone; sites: FilterSite[] }) {
  // The zone it opened with, for as long as it is open: its fields hold times on those clocks, and what counts as changed
  // is read against the stored observation on the same clocks (a change of the profile's choice meanwhile shows next time).
  const [timeZone] = useState(props.timeZone);
  const original = useMemo(() => draftOf(observation, timeZone.zone), [observation, timeZone.zone]);
  const [draft, setDraft] = useState<ObservationDraft>(original);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [showAll, setShowAll] = useState(false);
  const fieldsRef = useRef<HTMLDivElement>(null);
  const problems = useMemo(() => draftProblems(draft, timeZone.zone), [draft, timeZone.zone]);
  const save = useMutation(
    trpc.observations.update.mutationOptions({
      onSuccess: async () => {
        await refreshObservations();
        onSaved();
      },
    }),
  );
  const problem = formProblem(save.error, { prefix: "update" });
  const touch = (path: string) => setTouched((current) => (current.has(path) ? current : new Set(current).add(path)));
  const fields = stepPropsOf({
    draft,
    setDraft,
    touch,
    timeZone,
    problems,
    shown: (path) => touched.has(path) || showAll,
    // The server's word on a field holds until the field changes.
    serverError: (path) => (touched.has(path) ? undefined : problem?.fieldErrors[path]),
  });
  const general = problem && Object.keys(problem.fieldErrors).length === 0 ? problem.message : null;

  const submit = () => {
    if (Object.keys(problems).length > 0) {
      setShowAll(true);
      // After the messages render: the first field in error takes focus.
      requestAnimationFrame(() => fieldsRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    const update = changedFields(original, draft, timeZone.zone);
    if (Object.keys(update).length === 0) return onClose();
    setTouched(new Set());
    save.mutate({ id: observation.id, update });
  };

  return (
    <FormDialog
      title="Edit observation"
      description="It can be changed while it waits (pending or paused). Only what you change is sent."
      submitLabel="Save changes"
      cancelLabel="Discard"
      busy={save.isPending}
      error={general}
      wide
      onSubmit={submit}
      onClose={onClose}
    >
      <div ref={fieldsRef} className="flex flex-col gap-6">
        <Section title="Observation">
          <TextField
            label="Name"
            required
            maxLength={200}
            autoComplete="off"
            {...textProps(fields, "name", draft.name, (current, name) => ({ ...current, name }))}
          />
        </Section>
        <Section title="Targets">
          <TargetsStep {...fields} sites={sites} />
        </Section>
        <Section title="Scheduling">
          <SchedulingStep {...fields} />
        </Section>
        <Section title="Notifications">
          <NotificationsStep {...fields} />
        </Section>
      </div>
    </FormDialog>
  );
}

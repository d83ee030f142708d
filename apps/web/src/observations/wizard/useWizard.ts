import { useEffect, useMemo, useRef, useState } from "react";
import { useTimeDisplay } from "../../lib/time-display";
import { typingZone } from "../../lib/zone-time";
import { draftProblems, homeObservatoryOf, newDraft, type ObservationDraft } from "./draft";
import { stepPropsOf } from "./step-props";
import { REVIEW_STEP, stepOf, steps } from "./steps";

type Focus = { on: "heading" | "first-invalid"; request: number };

const added = <T>(set: ReadonlySet<T>, value: T): ReadonlySet<T> => (set.has(value) ? set : new Set(set).add(value));

/**
 * The wizard's state: the draft, which fields were touched, on which steps Next was refused, and
 * the server's field errors (each until its field changes). A field's message shows once it was
 * touched or its step refused; Next refuses while its step has a problem and puts focus on the
 * first field in error, and a new step puts focus on its heading.
 *
 * Its times are typed in the chosen observatory's zone (`typingZone`; `zoneOf` gives an observatory's). Choosing another
 * observatory keeps the times as typed and reads them in the new one's zone, whose name beside each field changes: one
 * types the clock of the night they mean to observe ("22:00"), the same at any observatory, rather than an instant that
 * would turn into another hour of another night when it moved across the world. One that may run at any of several
 * observatories is typed on the clocks of the first of them, whose zone its page shows its times in.
 */
export function useWizard(zoneOf: (observatoryId: string) => string | undefined) {
  const [draft, setDraft] = useState<ObservationDraft>(newDraft);
  const [step, setStep] = useState(0);
  // The furthest step shown yet: the step list lets one go back to any step up to it, never ahead of it.
  const [reached, setReached] = useState(0);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [refused, setRefused] = useState<ReadonlySet<number>>(new Set());
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [focus, setFocus] = useState<Focus | null>(null);
  // Something typed or chosen: leaving the page would throw it away, so the page asks first.
  const [edited, setEdited] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // The profile's time display decides the zone too: a change to it reads the fields again.
  const choice = useTimeDisplay();
  const observatoryZone = zoneOf(homeObservatoryOf(draft));
  const several = draft.where === "any";
  const timeZone = useMemo(() => {
    const zone = typingZone(observatoryZone, choice);
    return several && choice === "observatory" && observatoryZone ? { ...zone, words: `the time zone of its first observatory, ${zone.zone}` } : zone;
  }, [observatoryZone, choice, several]);
  const problems = useMemo(() => draftProblems(draft, timeZone.zone), [draft, timeZone]);

  useEffect(() => {
    if (!focus) return;
    const field = focus.on === "first-invalid" ? form.current?.querySelector<HTMLElement>('[aria-invalid="true"]') : null;
    if (!field) {
      heading.current?.focus();
      return;
    }
    // The count of what blocks Next sits at the top of the step, above the fields: the step comes
    // into view from its top, so the count shows with the first field in error whenever both fit.
    form.current?.scrollIntoView({ block: "start" });
    field.focus({ preventScroll: field.getBoundingClientRect().bottom <= window.innerHeight });
  }, [focus]);
  const focusOn = (on: Focus["on"]) => setFocus((current) => ({ on, request: (current?.request ?? 0) + 1 }));

  const touch = (path: string) => setTouched((current) => added(current, path));
  const fields = stepPropsOf({
    draft,
    setDraft,
    touch,
    timeZone,
    problems,
    shown: (path) => touched.has(path) || refused.has(stepOf(path)),
    serverError: (path) => serverErrors[path],
    onEdit: (path) => {
      setEdited(true);
      setServerErrors((current) => (path in current ? Object.fromEntries(Object.entries(current).filter(([key]) => key !== path)) : current));
    },
  });

  const show = (index: number) => {
    setStep(index);
    setReached((current) => Math.max(current, index));
  };
  const goTo = (index: number) => {
    show(index);
    focusOn("heading");
  };
  /** Shows every problem of `index` and puts focus on the first. */
  const refuse = (index: number) => {
    setRefused((current) => added(current, index));
    show(index);
    focusOn("first-invalid");
  };
  const problemsOf = (index: number) => Object.keys(problems).filter((path) => stepOf(path) === index);

  return {
    draft,
    /** The zone its times are typed in, the one to read them in when it is sent. */
    timeZone,
    step,
    fields,
    form,
    heading,
    goTo,
    /** The furthest step shown yet: the step list offers each step up to it. */
    reached,
    /** Whether the person changed the draft: what the page chose for them (`preset`) does not count. */
    edited,
    /** Where it goes, chosen for the person (the only project or observatory, one just created): not an edit to ask about. */
    preset(change: Partial<Pick<ObservationDraft, "projectId" | "observatoryId">>) {
      setDraft((current) => ({ ...current, ...change, ...(change.projectId !== undefined ? { storageDestinationId: "" } : {}) }));
    },
    /** How many fields of this step must change before Next goes on, once Next was refused. */
    blocking: refused.has(step) ? problemsOf(step).length : 0,
    /** Next: the following step when this one is valid; at the review, true when every step is (ready to submit). */
    next(): boolean {
      if (problemsOf(step).length > 0) {
        refuse(step);
        return false;
      }
      if (step < REVIEW_STEP) {
        goTo(step + 1);
        return false;
      }
      const firstInvalid = steps.findIndex((_, index) => problemsOf(index).length > 0);
      if (firstInvalid !== -1) {
        refuse(firstInvalid);
        return false;
      }
      return true;
    },
    /** The server refused: its field errors go beside their fields, on the first step that holds one. */
    refusedByServer(fieldErrors: Record<string, string>) {
      setServerErrors(fieldErrors);
      const paths = Object.keys(fieldErrors);
      if (paths.length > 0) refuse(Math.min(...paths.map(stepOf)));
    },
  };
}

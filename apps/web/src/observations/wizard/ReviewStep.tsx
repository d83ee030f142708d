import type { ReactNode } from "react";
import { formatDeclination, formatDeclinationDegrees, formatRightAscension, formatRightAscensionDegrees } from "@meridian/rules";
import { Button } from "../../components/Button";
import { Time } from "../../components/Time";
import { useObservatoryTimeZone } from "../../observatories/useObservatoryTimeZone";
import { observationStatusInfo, typeLabels } from "../labels";
import { homeObservatoryOf, toInput, type ObservationDraft } from "./draft";
import { EstimateSummary } from "./EstimateSummary";
import { ForecastSlot } from "./ForecastSlot";
import { cadenceText } from "../cadence-text";

/** Both forms of a position; the review is reached only through valid steps, but a page must not break if it were not. */
function position(ra: unknown, dec: unknown): string {
  if (typeof ra !== "number" || typeof dec !== "number" || !Number.isFinite(ra) || !Number.isFinite(dec) || Math.abs(dec) > 90) return "—";
  const raText = `${formatRightAscension(ra, { decimals: 2 })} (${formatRightAscensionDegrees(ra)})`;
  return `RA ${raText} · Dec ${formatDeclination(dec, { decimals: 1 })} (${formatDeclinationDegrees(dec)}) · J2000`;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** Everything that will be sent, section by section, each with a way back to its step; then the forecast, once there is one. */
export function ReviewStep({
  draft,
  timeZone,
  projectName,
  observatoryNames,
  destinationName,
  goTo,
}: {
  draft: ObservationDraft;
  /** The zone its times were typed in. */
  timeZone: string;
  projectName: string;
  /** The observatory it runs at, or each of those it may run at (candidates), in the order sent. */
  observatoryNames: string[];
  destinationName: string | null;
  goTo(step: number): void;
}) {
  const input = toInput(draft, timeZone);
  const { constraints } = input;
  const observatoryZone = useObservatoryTimeZone(homeObservatoryOf(draft));
  return (
    <div className="flex flex-col gap-6">
      <Section title="Observation" step={0} goTo={goTo}>
        <Item term="Name">{input.name}</Item>
        <Item term="Project">{projectName}</Item>
        {draft.where === "any" ? (
          <Item term="Observatories">
            Any of these {observatoryNames.length}, as the network plan chooses:
            <ul className="mt-1 list-disc pl-5">
              {observatoryNames.map((name, index) => (
                <li key={index}>{name}</li>
              ))}
            </ul>
          </Item>
        ) : (
          <Item term="Observatory">{observatoryNames[0]}</Item>
        )}
        {destinationName ? <Item term="Files copied to">{destinationName}</Item> : null}
      </Section>
      <Section title="Targets" step={1} goTo={goTo}>
        {input.targets.map((target, index) => (
          <Item key={index} term={`Target ${index + 1}`}>
            <span className="font-medium">{target.name}</span>
            {draft.targets[index]?.source && draft.targets[index].source.designation !== target.name ? ` (${draft.targets[index].source.designation})` : ""}
            <span className="block">{position(target.ra, target.dec)}</span>
            <ul className="mt-1 list-disc pl-5">
              {target.exposures.map((exposure, exposureIndex) => (
                <li key={exposureIndex}>
                  {plural(exposure.count, "exposure")} of {exposure.exposureSeconds} s in {exposure.filter}, binning {exposure.binning}
                </li>
              ))}
            </ul>
          </Item>
        ))}
      </Section>
      <Section title="Scheduling" step={2} goTo={goTo}>
        <Item term="Type">{typeLabels[draft.type]}</Item>
        {input.fixedTimeStart || input.fixedTimeEnd ? (
          <Item term="Time window">
            {/* In the observatory's zone, as the forecast below and every time of an observation. */}
            {input.fixedTimeStart ? (
              <>
                not before <Time iso={input.fixedTimeStart} zone={observatoryZone} />
              </>
            ) : null}
            {input.fixedTimeStart && input.fixedTimeEnd ? ", " : null}
            {input.fixedTimeEnd ? (
              <>
                not after <Time iso={input.fixedTimeEnd} zone={observatoryZone} />
              </>
            ) : null}
          </Item>
        ) : null}
        {input.monitoring ? <Item term="Repeats">{cadenceText(input.monitoring, observatoryZone)}</Item> : null}
        <Item term="Priority">{input.priority} of 10</Item>
        <Item term="Darkness">{input.bypassDarkness ? "Not needed (daylight and twilight too)" : `After ${constraints?.twilight} twilight`}</Item>
        <Item term="Minimum altitude">{constraints?.minAltitude}°</Item>
        {constraints?.maxAirmass != null ? <Item term="Maximum airmass">{constraints.maxAirmass}</Item> : null}
        {constraints?.moonDistance != null ? <Item term="Moon distance">at least {constraints.moonDistance}°</Item> : null}
      </Section>
      <Section title="Notifications" step={3} goTo={goTo}>
        <Item term="By">{[draft.email ? "email" : null, draft.push ? "push" : null].filter(Boolean).join(" and ") || "none"}</Item>
        <Item term="When it becomes">{draft.states.map((status) => observationStatusInfo[status].label.toLowerCase()).join(", ") || "never"}</Item>
      </Section>
      <EstimateSummary input={input} />
      <ForecastSlot input={input} />
    </div>
  );
}

function Section({ title, step, goTo, children }: { title: string; step: number; goTo(step: number): void; children: ReactNode }) {
  return (
    <section aria-label={title} className="min-w-0">
      <div className="flex items-center justify-between gap-3 border-b border-slate-100 pb-1">
        <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
        <Button variant="ghost" className="px-2 py-1" aria-label={`Change ${title.toLowerCase()}`} onClick={() => goTo(step)}>
          Change
        </Button>
      </div>
      <dl className="mt-2 grid gap-x-4 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">{children}</dl>
    </section>
  );
}

function Item({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-slate-500">{term}</dt>
      <dd className="min-w-0 break-words text-slate-900">{children}</dd>
    </>
  );
}

import { TextField } from "../../components/TextField";
import { textProps, type StepProps } from "./step-props";
import { ZonedTimeField } from "./ZonedTimeField";

/**
 * A monitoring observation's cadence, `monitoring: {intervalMinutes, until, maxRuns}` (docs/api-contract.md,
 * "Time and duration"), each field checked as typed with the API's rules and words. All three empty
 * sends none: it then goes back to the queue as soon as a run ends.
 */
export function MonitoringCadence(props: StepProps) {
  const { draft, timeZone } = props;
  return (
    <section aria-labelledby="monitoring-cadence" className="min-w-0 rounded-md bg-slate-50 p-3 ring-1 ring-slate-200 ring-inset">
      <h3 id="monitoring-cadence" className="text-sm font-medium text-slate-900">
        Cadence
      </h3>
      <p className="mt-1 text-sm text-slate-600">
        After each completed or failed run it waits this long, then goes back to the queue; it ends for good after the last run or once no run can start before
        the end. Leave all three empty to repeat as soon as it is eligible.
      </p>
      {/* Two columns, not three: a third of the edit dialog cut the date and time of "Until" short beside its zone. */}
      <div className="mt-3 grid gap-4 sm:grid-cols-2">
        <TextField
          label="Repeat every (minutes)"
          inputMode="numeric"
          hint="At least 1; 60 is hourly, 1440 daily."
          {...textProps(props, "monitoring.intervalMinutes", draft.intervalMinutes, (current, intervalMinutes) => ({ ...current, intervalMinutes }))}
        />
        <ZonedTimeField
          label="Until"
          zone={timeZone.zone}
          hint={`Optional; in ${timeZone.words}.`}
          {...textProps(props, "monitoring.until", draft.monitoringUntil, (current, monitoringUntil) => ({ ...current, monitoringUntil }))}
        />
        <TextField
          label="At most (runs)"
          inputMode="numeric"
          hint="Optional; at least 1."
          {...textProps(props, "monitoring.maxRuns", draft.maxRuns, (current, maxRuns) => ({ ...current, maxRuns }))}
        />
      </div>
    </section>
  );
}

/**
 * The place of a monitoring observation's cadence: `monitoring: {intervalMinutes, until, maxRuns}`
 * (docs/api-contract.md, "Time and duration"). The API does not take it yet, so the wizard neither asks for it
 * nor sends it; its fields go here when it does.
 */
export function MonitoringCadence() {
  return (
    <section aria-labelledby="monitoring-cadence" className="rounded-md bg-slate-50 p-3 text-sm ring-1 ring-slate-200 ring-inset">
      <h3 id="monitoring-cadence" className="font-medium text-slate-900">
        Cadence
      </h3>
      <p className="mt-1 text-slate-600">
        A monitoring observation goes back to the queue after each completed or failed run, and dispatch sends it again as soon as it is eligible. How often it
        repeats, until when and how many runs will be set here once the server takes them.
      </p>
    </section>
  );
}

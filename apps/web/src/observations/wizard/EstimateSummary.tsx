import { useQuery } from "@tanstack/react-query";
import { estimatedSeconds, formatDuration } from "@meridian/rules";
import { trpc } from "../../trpc";
import type { ObservationInput } from "./draft";

/**
 * How long one run will hold the observatory, by the same formula and the chosen observatory's
 * slew and readout settings as the API's `estimatedSeconds`: one slew per target, every exposure
 * and its readout. With candidates, by the first one's settings, as the API estimates it.
 */
export function EstimateSummary({ input }: { input: ObservationInput }) {
  const several = input.candidateObservatoryIds !== undefined;
  const id = input.observatoryId ?? input.candidateObservatoryIds?.[0] ?? "";
  const observatory = useQuery(trpc.observatories.get.queryOptions({ id }, { enabled: Boolean(id), retry: false }));
  const timing = observatory.data?.settings;
  return (
    <section aria-label="Estimate" className="min-w-0">
      <h3 className="border-b border-slate-100 pb-1 text-sm font-semibold text-slate-900">Estimate</h3>
      <p className="mt-2 text-sm text-slate-900">
        {timing ? (
          <>
            About <strong>{formatDuration(estimatedSeconds({ targets: input.targets, timing }))}</strong> per run
            {several ? ` at ${observatory.data?.name}, the first of its observatories` : null}
            <span className="text-slate-500">
              {" "}
              (a {timing.slewSeconds} s slew per target, each exposure plus a {timing.readoutSeconds} s readout)
            </span>
          </>
        ) : (
          <span className="text-slate-500">
            {observatory.isError ? "The observatory's settings could not be read." : "Reading the observatory's settings…"}
          </span>
        )}
      </p>
    </section>
  );
}

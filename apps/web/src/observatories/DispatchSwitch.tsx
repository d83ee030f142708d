import { useMutation } from "@tanstack/react-query";
import { Toggle } from "../components/Toggle";
import { summarizeError } from "../lib/errors";
import { trpc } from "../trpc";
import type { Observatory } from "./permissions";
import { refreshObservatories } from "./refresh";

const explanation = (on: boolean) =>
  on ? "On: the next eligible observation is sent to the telescope whenever it is free." : "Off: observations wait in the queue; none is sent.";

/** Whether dispatch sends observations to this observatory: a switch for its administrators, a plain statement for everyone else. */
export function DispatchSwitch({ observatory }: { observatory: Observatory }) {
  const canSwitch = Boolean(observatory.myPermissions?.can_admin);
  const save = useMutation(trpc.observatories.update.mutationOptions({ onSuccess: () => refreshObservatories() }));
  // While the change is on its way the switch shows where it goes.
  const on = save.isPending && save.variables ? Boolean(save.variables.update.dispatchEnabled) : observatory.dispatchEnabled;
  return (
    <section aria-label="Dispatch" className="mb-4 rounded-lg bg-white px-4 shadow-sm ring-1 ring-slate-200 sm:px-6">
      {canSwitch ? (
        <Toggle
          label="Dispatch"
          description={explanation(on)}
          checked={on}
          disabled={save.isPending}
          onChange={(dispatchEnabled) => save.mutate({ id: observatory.id, update: { dispatchEnabled } })}
        />
      ) : (
        <div className="py-3">
          <p className="text-sm font-medium text-slate-800">Dispatch {observatory.dispatchEnabled ? "on" : "off"}</p>
          <p className="text-sm text-slate-500">{explanation(observatory.dispatchEnabled)} Its administrators switch it.</p>
        </div>
      )}
      {save.isError ? (
        <p role="alert" className="pb-3 text-sm text-red-600">
          {summarizeError(save.error).message}
        </p>
      ) : null}
    </section>
  );
}

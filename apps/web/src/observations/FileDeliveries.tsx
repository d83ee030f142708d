import { useMutation } from "@tanstack/react-query";
import { RotateCcw } from "lucide-react";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { formProblem } from "../lib/form-errors";
import { useRealtimeEvent } from "../lib/realtime";
import type { RouterOutputs } from "../organizations/types";
import { queryClient, trpc } from "../trpc";

type Delivery = RouterOutputs["observations"]["files"]["items"][number]["deliveries"][number];

/** Attempts the server makes before a delivery is `failed` (contract: at least 8 over 12 hours). */
const ATTEMPTS = 8;

/** The files' delivery states follow the worker: each attempt's outcome is pushed over /ws. */
export function useFileDeliveryUpdates(observationId: string) {
  useRealtimeEvent("observation.file_delivery", (data) => {
    if (data.observationId === observationId) void queryClient.invalidateQueries(trpc.observations.files.queryFilter({ id: observationId }));
  });
}

function stateOf(delivery: Delivery) {
  if (delivery.status === "delivered") return { tone: "emerald", label: "Delivered" } as const;
  if (delivery.status === "failed") return { tone: "red", label: "Delivery failed" } as const;
  return delivery.attempts === 0
    ? ({ tone: "sky", label: "Delivering" } as const)
    : ({ tone: "amber", label: `Retrying (attempt ${delivery.attempts + 1} of ${ATTEMPTS})` } as const);
}

/** Where a file's copy went, or why it has not yet, with a way to start over once it has failed. */
export function FileDeliveries({
  fileId,
  filename,
  observationId,
  deliveries,
}: {
  fileId: string;
  filename: string;
  observationId: string;
  deliveries: Delivery[];
}) {
  const retry = useMutation(
    trpc.observations.retryDelivery.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.observations.files.queryFilter({ id: observationId })),
    }),
  );
  if (deliveries.length === 0) return null;
  return (
    <ul aria-label={`Deliveries of ${filename}`} className="mt-1 flex flex-col gap-1">
      {deliveries.map((delivery) => {
        const state = stateOf(delivery);
        return (
          <li key={delivery.destinationId} className="flex min-w-0 flex-wrap items-center gap-1.5 text-xs">
            <Badge tone={state.tone}>{state.label}</Badge>
            {delivery.remotePath ? (
              <span className="min-w-0 truncate font-mono text-slate-500" title={delivery.remotePath}>
                {delivery.remotePath}
              </span>
            ) : null}
            {delivery.error && delivery.status !== "delivered" ? <span className="min-w-0 break-words text-red-700">{delivery.error}</span> : null}
            {delivery.status === "failed" ? (
              <Button
                variant="ghost"
                busy={retry.isPending}
                aria-label={`Retry the delivery of ${filename}`}
                icon={<RotateCcw aria-hidden="true" className="size-3.5" />}
                onClick={() => retry.mutate({ id: fileId, destinationId: delivery.destinationId })}
              >
                Retry
              </Button>
            ) : null}
            {retry.error ? <span className="text-red-700">{formProblem(retry.error)?.message}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

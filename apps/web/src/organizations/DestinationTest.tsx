import { useMutation } from "@tanstack/react-query";
import { PlugZap } from "lucide-react";
import { Button } from "../components/Button";
import { formProblem } from "../lib/form-errors";
import { trpc } from "../trpc";

/** Writes and removes a probe file at the destination and says, in words, whether that worked. */
export function useDestinationTest(organizationId: string, destination: { id: string; label: string }) {
  const test = useMutation(trpc.observations.testDestination.mutationOptions());
  const button = (
    <Button
      variant="ghost"
      busy={test.isPending}
      aria-label={`Test ${destination.label}`}
      icon={<PlugZap aria-hidden="true" className="size-4" />}
      onClick={() => test.mutate({ id: organizationId, destinationId: destination.id })}
    >
      Test
    </Button>
  );
  const failure = test.error ? (formProblem(test.error)?.message ?? "The test could not be run.") : test.data?.ok === false ? test.data.error : null;
  const outcome = (
    <p role="status" aria-label={`Test of ${destination.label}`} className="mt-3 px-4 text-xs empty:hidden sm:px-5">
      {test.data?.ok ? <span className="text-emerald-700">Works: a probe file was written and removed.</span> : null}
      {failure ? <span className="break-words text-red-700">Does not work: {failure}</span> : null}
    </p>
  );
  return { button, outcome };
}

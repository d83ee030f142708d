import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import type { TimeDisplay } from "@meridian/rules";
import { Alert } from "../components/Alert";
import { Card } from "../components/Card";
import { RadioGroup, type RadioChoice } from "../components/RadioGroup";
import { summarizeError } from "../lib/errors";
import { setTimeDisplay } from "../lib/time-display";
import { queryClient, trpc } from "../trpc";
import type { Profile } from "./useProfile";

const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const choices: Array<RadioChoice<TimeDisplay>> = [
  {
    value: "observatory",
    label: "Each observatory's time zone",
    description:
      "An observatory's times (windows, queue, runs) in its own zone; other times in your browser's zone. " +
      "Every time names its zone by its offset from UTC, such as UTC+11.",
  },
  { value: "browser", label: "Your browser's time zone", description: `Every time in ${browserZone}.` },
  { value: "utc", label: "UTC", description: "Every time in Coordinated Universal Time." },
];

/** Which zone every page shows times in; saved at once, in effect at once, rolled back if the save fails. */
export function TimeDisplayCard({ profile }: { profile: Profile }) {
  const profileKey = trpc.user.profile.queryKey();
  // The choice shows at once (a controlled radio that waits for the cache would flip back for a moment).
  const [chosen, setChosen] = useState<TimeDisplay | null>(null);
  const current = chosen ?? profile.timeDisplay ?? "observatory";
  const save = useMutation(
    trpc.user.updateProfile.mutationOptions({
      onMutate: async (input) => {
        await queryClient.cancelQueries({ queryKey: profileKey });
        const previous = queryClient.getQueryData(profileKey);
        queryClient.setQueryData(profileKey, (old) => (old ? { ...old, timeDisplay: input.timeDisplay } : old));
        if (input.timeDisplay) setTimeDisplay(input.timeDisplay);
        return { previous };
      },
      onError: (_error, _input, context) => {
        setChosen(null);
        if (context?.previous) {
          queryClient.setQueryData(profileKey, context.previous);
          setTimeDisplay(context.previous.timeDisplay ?? "observatory");
        }
      },
    }),
  );
  return (
    <Card title="Times" description="The time zone every page shows times in.">
      {save.isError ? (
        <Alert tone="error" className="mb-3">
          Could not save: {summarizeError(save.error).message}
        </Alert>
      ) : null}
      <RadioGroup
        legend="Show times in"
        legendHidden
        choices={choices}
        value={current}
        onChange={(choice) => {
          setChosen(choice);
          save.mutate({ timeDisplay: choice });
        }}
      />
      <p role="status" aria-live="polite" className="mt-3 min-h-5 text-sm text-slate-500">
        {save.isPending ? "Saving…" : save.isSuccess ? "Time display saved" : ""}
      </p>
    </Card>
  );
}

import { useMutation } from "@tanstack/react-query";
import { Alert } from "../components/Alert";
import { Card } from "../components/Card";
import { Toggle } from "../components/Toggle";
import { summarizeError } from "../lib/errors";
import { queryClient, trpc } from "../trpc";
import type { NotificationKey, Profile } from "./useProfile";

const groups: Array<{ legend: string; items: Array<{ key: NotificationKey; label: string; description: string }> }> = [
  {
    legend: "Channels",
    items: [
      { key: "email", label: "Email notifications", description: "Send notifications to your email address." },
      { key: "push", label: "Push notifications", description: "Send notifications to your phone or browser." },
    ],
  },
  {
    legend: "Categories",
    items: [
      { key: "systemEvents", label: "System events", description: "Announcements, maintenance and account notices." },
      { key: "observationEvents", label: "Observation events", description: "Status changes of the observations you follow." },
    ],
  },
];

/** Each switch saves at once; the screen shows the new state straight away and rolls back on failure. */
export function NotificationsCard({ profile }: { profile: Profile }) {
  const profileKey = trpc.user.profile.queryKey();
  const save = useMutation(
    trpc.user.updateProfile.mutationOptions({
      onMutate: async (input) => {
        await queryClient.cancelQueries({ queryKey: profileKey });
        const previous = queryClient.getQueryData(profileKey);
        queryClient.setQueryData(profileKey, (old) =>
          old ? { ...old, notificationPreferences: { ...old.notificationPreferences, ...input.notificationPreferences } } : old,
        );
        return { previous };
      },
      onError: (_error, _input, context) => {
        if (context?.previous) queryClient.setQueryData(profileKey, context.previous);
      },
      onSuccess: (saved, input) => {
        // Keep only what this call changed: another switch may have been flipped meanwhile.
        queryClient.setQueryData(profileKey, (old) => {
          if (!old) return saved;
          const changed = Object.keys(input.notificationPreferences ?? {}) as NotificationKey[];
          const preferences = { ...old.notificationPreferences };
          for (const key of changed) preferences[key] = saved.notificationPreferences[key];
          return { ...old, notificationPreferences: preferences };
        });
      },
    }),
  );
  const preferences = profile.notificationPreferences;
  const set = (key: NotificationKey) => (value: boolean) => save.mutate({ notificationPreferences: { [key]: value } });

  return (
    <Card title="Notifications" description="Choose how Meridian reaches you, and about what.">
      {save.isError ? (
        <Alert tone="error" className="mb-3">
          Could not save: {summarizeError(save.error).message}
        </Alert>
      ) : null}
      {groups.map((group, index) => (
        <fieldset key={group.legend} className={index > 0 ? "mt-4" : undefined}>
          <legend className="text-xs font-semibold tracking-wide text-slate-400 uppercase">{group.legend}</legend>
          <div className="divide-y divide-slate-100">
            {group.items.map((item) => (
              <Toggle key={item.key} label={item.label} description={item.description} checked={preferences[item.key]} onChange={set(item.key)} />
            ))}
          </div>
        </fieldset>
      ))}
      <p role="status" aria-live="polite" className="mt-2 min-h-5 text-sm text-slate-500">
        {save.isPending ? "Saving…" : save.isSuccess ? "Notification preferences saved" : ""}
      </p>
    </Card>
  );
}

import { useMutation, useQuery } from "@tanstack/react-query";
import { queryClient, trpc } from "../trpc";

export function useProfile() {
  return useQuery(trpc.user.profile.queryOptions());
}

export type Profile = NonNullable<ReturnType<typeof useProfile>["data"]>;
export type NotificationKey = keyof Profile["notificationPreferences"];

/** Name and avatar also show in the top bar, which reads `auth.me`. */
export function refreshIdentity() {
  return Promise.all([queryClient.invalidateQueries(trpc.user.profile.queryFilter()), queryClient.invalidateQueries(trpc.auth.me.queryFilter())]);
}

export function useUpdateProfile() {
  return useMutation(
    trpc.user.updateProfile.mutationOptions({
      onSuccess: async (profile, input) => {
        if (input.name !== undefined) {
          queryClient.setQueryData(trpc.user.profile.queryKey(), profile);
          await queryClient.invalidateQueries(trpc.auth.me.queryFilter());
        }
      },
    }),
  );
}

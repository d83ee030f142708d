import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { queryClient, trpc } from "../trpc";

/** Saves part of the server settings; `saved` says the last save went through (reset it when saving again). */
export function useSaveSettings() {
  const [saved, setSaved] = useState(false);
  const save = useMutation(
    trpc.admin.updateSettings.mutationOptions({
      onSuccess: async () => {
        setSaved(true);
        await queryClient.invalidateQueries(trpc.admin.settings.queryFilter());
      },
    }),
  );
  return { save, saved, setSaved };
}

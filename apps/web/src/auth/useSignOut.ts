import { useMutation } from "@tanstack/react-query";
import { useNavigate } from "react-router-dom";
import { trpc } from "../trpc";
import { resetSessionCache } from "./session-cache";

export function useSignOut() {
  const navigate = useNavigate();
  return useMutation(
    trpc.auth.logout.mutationOptions({
      // Even if the server call fails (session already gone), this browser is signed out.
      onSettled: async () => {
        resetSessionCache(null);
        await navigate("/login", { replace: true });
      },
    }),
  );
}

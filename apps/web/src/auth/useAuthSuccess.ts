import { useNavigate, useSearchParams } from "react-router-dom";
import { safeNextPath } from "./safe-next";
import { resetSessionCache } from "./session-cache";
import type { Me } from "./useMe";

/** After login or sign-up: a clean cache holding the new user, then on to where they were headed. */
export function useAuthSuccess() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  return async (user: Me) => {
    resetSessionCache(user);
    await navigate(safeNextPath(searchParams.get("next")), { replace: true });
  };
}

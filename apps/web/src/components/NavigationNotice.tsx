import { useLocation } from "react-router-dom";
import { Alert } from "./Alert";

/** A success notice handed over by the page that navigated here (e.g. after deleting something). */
export function NavigationNotice() {
  const state = useLocation().state as { notice?: unknown } | null;
  return typeof state?.notice === "string" ? (
    <Alert tone="success" className="mb-4">
      {state.notice}
    </Alert>
  ) : null;
}

import { useEffect } from "react";
import { useBlocker } from "react-router-dom";
import { DiscardChangesDialog } from "../components/DiscardChangesDialog";

/**
 * Leaving a page with unsaved input asks first, as the app's form dialogs do (`useDiscardConfirmation`): a link, Back or a
 * redirect inside the app shows "Discard your changes?", where Keep editing stays; a reload or a closed tab gets the
 * browser's own question. `unsaved` is read at each attempt, so a page that has just saved can leave at once.
 */
export function useLeaveConfirmation(unsaved: () => boolean) {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => currentLocation.pathname !== nextLocation.pathname && unsaved());
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (!unsaved()) return;
      event.preventDefault();
      // Older browsers ask only when a value is set.
      event.returnValue = "";
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [unsaved]);
  return blocker.state === "blocked" ? <DiscardChangesDialog onKeepEditing={() => blocker.reset()} onDiscard={() => blocker.proceed()} /> : null;
}

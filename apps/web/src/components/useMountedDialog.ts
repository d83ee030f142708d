import { useEffect, useRef, type MouseEvent, type SyntheticEvent } from "react";
import { restoreFocus } from "./focus-fallback";

/**
 * The props of a <dialog> that is a modal for as long as its component is mounted: the browser
 * moves focus inside, keeps it there and makes the page behind inert. Escape, a click on the
 * backdrop and a close the browser makes by itself (a repeated Escape) call `onClose`, which may
 * ask before it closes (see `useDiscardConfirmation`): the dialog stays open until it is unmounted.
 * The dialog's box must fill its panel, so that a click on the dialog element itself is on the backdrop.
 */
export function useMountedDialog(onClose: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  /** What had focus before the dialog opened (its opening button). */
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || dialog.open) return;
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
  }, []);
  // Closing a <dialog> gives focus back, but removing an open one does not: do it here (the main
  // content when what opened it is gone).
  useEffect(
    () => () => {
      const target = opener.current;
      queueMicrotask(() => restoreFocus(target));
    },
    [],
  );
  return {
    ref,
    "aria-modal": true,
    onCancel: (event: SyntheticEvent<HTMLDialogElement>) => {
      // React hands on the events of a dialog inside this one (the discard question): not ours.
      if (event.target !== event.currentTarget) return;
      event.preventDefault();
      onClose();
    },
    onClose: (event: SyntheticEvent<HTMLDialogElement>) => {
      const dialog = event.currentTarget;
      if (event.target !== dialog || dialog.open || !dialog.isConnected) return;
      // The browser closed it by itself, even if it refused: show it again until it is unmounted.
      dialog.showModal();
      onClose();
    },
    onClick: (event: MouseEvent<HTMLDialogElement>) => {
      if (event.target === event.currentTarget) onClose();
    },
  } as const;
}

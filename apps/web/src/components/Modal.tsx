import { useEffect, useRef, type ReactNode, type Ref } from "react";
import { Button } from "./Button";
import { restoreFocus } from "./focus-fallback";
import { useFocusAfterBusy } from "./useFocusAfterBusy";

export interface ModalProps {
  open: boolean;
  labelledBy: string;
  describedBy?: string;
  busy?: boolean;
  /**
   * False for a modal that must be answered (it has no way out but its own buttons): it is
   * `closedby="none"`, so Escape and close requests never close it; a browser without that
   * attribute may still close it on a repeated Escape, and then it opens again at once.
   */
  dismissible?: boolean;
  onClose(): void;
  className: string;
  children: ReactNode;
}

/**
 * A modal on <dialog>, shown while `open`: focus trapping, Escape and the backdrop come from the browser.
 * Escape closes it through `onClose`, except while busy. When busy ends with focus outside it (its
 * busy button was disabled), focus goes back in: see `useFocusAfterBusy`.
 */
export function Modal({ open, labelledBy, describedBy, busy, dismissible = true, onClose, className, children }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  /** What had focus before the dialog opened (its opening button): focus goes back there on close. */
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      // Start on the first field, not on the close button that comes first in the markup.
      dialog.querySelector<HTMLElement>("input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled])")?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  // Also when the dialog is unmounted while open (FormDialog is rendered only while open).
  useEffect(
    () => () => {
      const target = opener.current;
      if (target) queueMicrotask(() => restoreFocus(target));
    },
    [],
  );
  useFocusAfterBusy(ref, Boolean(busy));
  useEffect(() => {
    // Only once it was open: a modal mounted closed (the announcement gate) leaves focus alone.
    if (open || !opener.current) return;
    // What opened it may be gone, or the body (a modal that opened by itself): then the main content.
    restoreFocus(opener.current);
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-modal="true"
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      closedby={dismissible ? undefined : "none"}
      onCancel={(event) => {
        // React hands on the events of a dialog inside this one (the discard question): not ours.
        if (event.target !== event.currentTarget) return;
        event.preventDefault();
        if (!busy && dismissible) onClose();
      }}
      onClose={(event) => {
        if (event.target !== event.currentTarget) return;
        // Browsers let a repeated Escape close a dialog that refused it (close-watcher abuse rules):
        // show it again, and take the Escape as what it asked for, which may be a question first.
        const dialog = ref.current;
        if (!open || !dialog || dialog.open || !dialog.isConnected) return;
        dialog.showModal();
        if (!busy && dismissible) onClose();
      }}
      className={`m-auto w-[calc(100%-2rem)] rounded-lg bg-white p-0 shadow-xl backdrop:bg-slate-900/50 ${className}`}
    >
      {children}
    </dialog>
  );
}

/** The modal's button row: Cancel (or `cancelLabel`), the way back focus returns to after a refusal, then the action. */
export function ModalActions({
  busy,
  onCancel,
  cancelLabel = "Cancel",
  cancelRef,
  className = "",
  children,
}: {
  busy?: boolean;
  onCancel(): void;
  cancelLabel?: string;
  cancelRef?: Ref<HTMLButtonElement>;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={`flex flex-col-reverse gap-2 bg-slate-50 px-5 py-3 sm:flex-row sm:justify-end ${className}`}>
      <Button variant="secondary" onClick={onCancel} disabled={busy} ref={cancelRef} data-dialog-way-back>
        {cancelLabel}
      </Button>
      {children}
    </div>
  );
}

import { useEffect, useId, useRef } from "react";
import { Button } from "./Button";
import { ModalActions } from "./Modal";

/**
 * "Discard your changes?", asked over a form dialog or drawer that is being closed with input in
 * it. A modal <dialog> of its own, rendered inside the one it asks about, so the form behind is
 * inert until it is answered. Keep editing takes focus, so Enter or a second Escape keeps what was
 * typed; only Discard closes the form.
 */
export function DiscardChangesDialog({ onKeepEditing, onDiscard }: { onKeepEditing(): void; onDiscard(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const keepEditingRef = useRef<HTMLButtonElement>(null);
  /** Where the person was (the field they typed in, or the button that asked to close): focus goes back there. */
  const returnTo = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const descriptionId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) {
      returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
    }
    keepEditingRef.current?.focus();
    // Removing an open dialog gives focus back to nothing; by now the form is no longer inert.
    return () => {
      const target = returnTo.current;
      if (target?.isConnected) target.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      role="alertdialog"
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      onCancel={(event) => {
        // Stop here: React would hand the event on to the dialog this one sits in, which would close.
        event.preventDefault();
        event.stopPropagation();
        onKeepEditing();
      }}
      onClose={(event) => {
        // Only the browser closes it (a repeated Escape): that is no answer to discard.
        event.stopPropagation();
        onKeepEditing();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-sm rounded-lg bg-white p-0 shadow-xl backdrop:bg-slate-900/30"
    >
      <div className="px-5 pt-5 pb-4">
        <h2 id={titleId} className="text-base font-semibold text-slate-900">
          Discard your changes?
        </h2>
        <p id={descriptionId} className="mt-2 text-sm text-slate-600">
          What you entered in this form has not been saved and will be lost.
        </p>
      </div>
      <ModalActions onCancel={onKeepEditing} cancelLabel="Keep editing" cancelRef={keepEditingRef}>
        <Button variant="danger" onClick={onDiscard}>
          Discard
        </Button>
      </ModalActions>
    </dialog>
  );
}

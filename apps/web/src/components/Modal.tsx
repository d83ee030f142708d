import { useEffect, useRef, type ReactNode } from "react";
import { Button } from "./Button";

/**
 * A modal on <dialog>, shown while `open`: focus trapping, Escape and the backdrop come from the browser.
 * Escape closes it through `onClose`, except while busy.
 */
export function Modal({ open, labelledBy, describedBy, busy, onClose, className, children }: { open: boolean; labelledBy: string; describedBy?: string; busy?: boolean; onClose(): void; className: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
      className={`m-auto w-[calc(100%-2rem)] rounded-lg bg-white p-0 shadow-xl backdrop:bg-slate-900/50 ${className}`}
    >
      {children}
    </dialog>
  );
}

/** The modal's button row: Cancel, then the action. */
export function ModalActions({ busy, onCancel, className = "", children }: { busy?: boolean; onCancel(): void; className?: string; children: ReactNode }) {
  return (
    <div className={`flex flex-col-reverse gap-2 bg-slate-50 px-5 py-3 sm:flex-row sm:justify-end ${className}`}>
      <Button variant="secondary" onClick={onCancel} disabled={busy}>
        Cancel
      </Button>
      {children}
    </div>
  );
}

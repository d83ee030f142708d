import { useId, type ReactNode } from "react";
import { Button } from "./Button";
import { Modal, ModalActions } from "./Modal";

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The button that leaves things as they are; "Cancel" unless that would sit beside a "Cancel …" action. */
  cancelLabel?: string;
  busy?: boolean;
  error?: string | null;
  onConfirm(): void;
  onCancel(): void;
}

/** What a dialog takes from the action it confirms (see `useConfirmedMutation`), besides its texts. */
export type ConfirmDialogState = Pick<ConfirmDialogProps, "open" | "busy" | "error" | "onConfirm" | "onCancel">;

export function ConfirmDialog({ open, title, children, confirmLabel, cancelLabel, busy, error, onConfirm, onCancel }: ConfirmDialogProps) {
  const titleId = useId();
  return (
    <Modal open={open} labelledBy={titleId} busy={busy} onClose={onCancel} className="max-w-md">
      <div className="px-5 pt-5 pb-4">
        <h2 id={titleId} className="text-base font-semibold text-slate-900">
          {title}
        </h2>
        <div className="mt-2 text-sm text-slate-600">{children}</div>
        {error ? (
          <p role="alert" className="mt-3 text-sm text-red-600">
            {error}
          </p>
        ) : null}
      </div>
      <ModalActions busy={busy} onCancel={onCancel} cancelLabel={cancelLabel}>
        <Button variant="danger" onClick={onConfirm} busy={busy}>
          {confirmLabel}
        </Button>
      </ModalActions>
    </Modal>
  );
}

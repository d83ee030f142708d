import { useId, type FormEvent, type ReactNode } from "react";
import { X } from "lucide-react";
import { Alert } from "./Alert";
import { Button } from "./Button";
import { Modal, ModalActions } from "./Modal";
import { useDiscardConfirmation } from "./useDiscardConfirmation";

export interface FormDialogProps {
  title: string;
  description?: ReactNode;
  submitLabel: string;
  submitVariant?: "primary" | "danger";
  /** Keeps the submit button off until the form can be sent (a required reason not yet typed). */
  submitDisabled?: boolean;
  /** The closing button's text when "Cancel" would be ambiguous (cancelling an announcement). */
  cancelLabel?: string;
  busy?: boolean;
  /** A failure that belongs to no single field. */
  error?: string | null;
  wide?: boolean;
  children: ReactNode;
  onSubmit(): void;
  onClose(): void;
}

/**
 * A modal form, open while mounted: render it conditionally so every opening starts from fresh state.
 * Closing it with a changed field asks first (`useDiscardConfirmation`); `onClose` is called once it
 * may close.
 */
export function FormDialog({
  title,
  description,
  submitLabel,
  submitVariant = "primary",
  submitDisabled,
  cancelLabel,
  busy,
  error,
  wide,
  children,
  onSubmit,
  onClose,
}: FormDialogProps) {
  const titleId = useId();
  const descriptionId = useId();
  const { containerRef, requestClose, confirmation } = useDiscardConfirmation<HTMLFormElement>({ onClose, busy });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!busy && !submitDisabled) onSubmit();
  };
  return (
    <Modal
      open
      labelledBy={titleId}
      describedBy={description ? descriptionId : undefined}
      busy={busy}
      onClose={requestClose}
      className={wide ? "max-w-2xl" : "max-w-lg"}
    >
      {/* The fields scroll; the buttons stay in view however long the form is. */}
      <form ref={containerRef} onSubmit={submit} noValidate className="flex max-h-[calc(100dvh-2rem)] flex-col">
        <div className="min-h-0 flex-1 overflow-y-auto px-5 pt-5 pb-5">
          <div className="flex items-start justify-between gap-4">
            <h2 id={titleId} className="text-base font-semibold text-slate-900">
              {title}
            </h2>
            <button
              type="button"
              aria-label="Close"
              onClick={requestClose}
              disabled={busy}
              className="-mt-1 -mr-2 rounded-md p-1.5 text-slate-400 hover:bg-slate-100 hover:text-slate-600"
            >
              <X aria-hidden="true" className="size-4" />
            </button>
          </div>
          {description ? (
            <div id={descriptionId} className="mt-1 text-sm text-slate-500">
              {description}
            </div>
          ) : null}
          {error ? (
            <Alert tone="error" className="mt-4">
              {error}
            </Alert>
          ) : null}
          <div className="mt-4 flex flex-col gap-4">{children}</div>
        </div>
        <ModalActions busy={busy} onCancel={requestClose} cancelLabel={cancelLabel} className="shrink-0 border-t border-slate-100">
          <Button type="submit" variant={submitVariant} busy={busy} disabled={submitDisabled}>
            {submitLabel}
          </Button>
        </ModalActions>
      </form>
      {confirmation}
    </Modal>
  );
}

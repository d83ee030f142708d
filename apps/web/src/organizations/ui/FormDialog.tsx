import { useEffect, useId, useRef, type FormEvent, type ReactNode } from "react";
import { X } from "lucide-react";
import { Alert } from "../../components/Alert";
import { Button } from "../../components/Button";

export interface FormDialogProps {
  title: string;
  description?: ReactNode;
  submitLabel: string;
  submitVariant?: "primary" | "danger";
  busy?: boolean;
  /** A failure that belongs to no single field. */
  error?: string | null;
  wide?: boolean;
  children: ReactNode;
  onSubmit(): void;
  onClose(): void;
}

/**
 * A modal form on <dialog>, shown while mounted: render it conditionally so every opening
 * starts from fresh state. Focus trapping, Escape and the backdrop come from the browser.
 */
export function FormDialog({ title, description, submitLabel, submitVariant = "primary", busy, error, wide, children, onSubmit, onClose }: FormDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!busy) onSubmit();
  };
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
      className={`m-auto max-h-[calc(100dvh-2rem)] w-[calc(100%-2rem)] overflow-y-auto rounded-lg bg-white p-0 shadow-xl backdrop:bg-slate-900/50 ${wide ? "max-w-2xl" : "max-w-lg"}`}
    >
      <form onSubmit={submit} noValidate>
        <div className="px-5 pt-5 pb-5">
          <div className="flex items-start justify-between gap-4">
            <h2 id={titleId} className="text-base font-semibold text-slate-900">
              {title}
            </h2>
            <button type="button" aria-label="Close" onClick={onClose} disabled={busy} className="-mt-1 -mr-2 rounded-md p-1.5 text-slate-400 hover:bg-slate-100 hover:text-slate-600">
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
        <div className="flex flex-col-reverse gap-2 border-t border-slate-100 bg-slate-50 px-5 py-3 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant={submitVariant} busy={busy}>
            {submitLabel}
          </Button>
        </div>
      </form>
    </dialog>
  );
}
